import type { FinishingStage, FinishingSteps } from './finish-pdf.js';

/**
 * What a render plan asks of the finishing stage, by stage: the settings each
 * stage's step is made from. No stage has settings yet (issues 22 and 23 add
 * them), so a plan's finishing is always empty and the printed PDF is
 * delivered as it is.
 */
export type FinishingPlan = { readonly [S in FinishingStage]?: never };

/** The steps `finishPdf` runs for a plan's finishing settings. */
export function finishingSteps(plan: FinishingPlan): FinishingSteps {
  // Each stage turns its settings into a step here once it has any.
  void plan;
  return {};
}
