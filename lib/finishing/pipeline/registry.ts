/**
 * The finishing registry: the one ordered list of the steps a finished PDF
 * goes through (issue 45). Every other list is derived from it: the order
 * `finishPdf` runs them in, the plan a render carries (`FinishingPlan`, one
 * field per step), whether a render needs finishing at all (`wantsFinishing`)
 * and which steps it runs (`finishingSteps`). Forgetting one of those is no
 * longer possible: a step is registered here or it does not exist, and a
 * registered step without a way to run is a compile error.
 *
 * A definition loads its step's module only when the step runs (the plan is
 * read on every render; the PDF library is no part of a cold start that has
 * no finishing to do). What the request side derives from the same list
 * (the `pdf` options, their rules, the plan) is in finishing-options.ts.
 *
 * The order, written down once: parts are assembled first so that every
 * later step sees one document; the pages are chosen, ordered and turned next
 * (so every step after counts the final pages); the form is filled and
 * flattened before anything is drawn over it; a render's running header and
 * footer (bands) number the final pages; the stamp goes over them; metadata
 * and the archival identification describe the stamped document; attachments
 * join it; compression rewrites the images and stores what is identical once
 * (after every step that adds content, so PDF/A's fixes and the attachments
 * are compressed too, and before encryption and the signature, which must
 * cover the final bytes); encryption comes next, over everything; the
 * signature last, over the finished file's every byte (a signature and
 * encryption are not combined: the schema refuses both).
 */
import type * as v from 'valibot';
import { previewOptions } from '../images/preview-options.js';
import { archiveDefinition } from '../steps/archive/definition.js';
import { assembleDefinition } from '../steps/assemble/definition.js';
import { attachDefinition } from '../steps/attach/definition.js';
import { bandsDefinition } from '../steps/bands/definition.js';
import { compressDefinition } from '../steps/compress/definition.js';
import { formDefinition } from '../steps/form/definition.js';
import { pagesDefinition } from '../steps/pages/definition.js';
import { protectDefinition } from '../steps/protect/definition.js';
import { signDefinition } from '../steps/sign/definition.js';
import { stampDefinition } from '../steps/stamp/definition.js';
import type { PreviewPlan } from './finishing-plan.js';
import type { StepContext, StepDefinition } from './step-definition.js';
import type { FinishingStep } from './step-types.js';

export { PRODUCER } from './finishing-plan.js';
export type { AssemblePlan } from '../steps/assemble/definition.js';
export type { BandsRun, PlanContext, StepContext, StepDefinition } from './step-definition.js';

/** The steps, in the order they run. Adding a step: its definition module, then one line here (docs/architecture.md). */
export const FINISHING_REGISTRY = [
  assembleDefinition,
  pagesDefinition,
  formDefinition,
  bandsDefinition,
  stampDefinition,
  archiveDefinition,
  attachDefinition,
  compressDefinition,
  protectDefinition,
  signDefinition,
] as const;

/**
 * What a caller writes in `pdf` that is no step's: the finished PDF's
 * preview, imaged once every step has run (the document renderer does it;
 * the PDF stays as it is). Its options are read after the steps'.
 */
export const NON_STEP_OPTIONS = { preview: previewOptions } as const;

type Registry = typeof FINISHING_REGISTRY;

/** A stage of the finishing pipeline: a registered step's name. */
export type FinishingStage = Registry[number]['name'];

/** The order the steps run in: the registry's. */
export const FINISHING_ORDER: readonly FinishingStage[] = FINISHING_REGISTRY.map((definition) => definition.name);

/** The plan of the step named `S`, as its definition takes it. */
export type PlanOf<S extends FinishingStage> = Extract<Registry[number], { name: S }> extends StepDefinition<S, infer Plan, infer _Options> ? Plan : never;

/** A plan for each step that is asked for; a step without one is skipped. */
export type StepPlans = { [S in FinishingStage]?: PlanOf<S> };

/** The steps a document runs, by stage; a stage without a step is skipped. */
export type FinishingSteps = Partial<Record<FinishingStage, FinishingStep>>;

/** The registered steps a request asks for through its options. */
export type RequestStep = Extract<Registry[number], { readonly options: { readonly entries: v.ObjectEntries } }>;

/**
 * What a render plan asks of the finishing stage: the plans of the steps the
 * request's options make (lib/plan builds them with finishing-options.ts),
 * and the preview's. The steps made otherwise (`assemble`, `bands`) say why
 * in their definitions; the document renderer adds their plans once it has
 * printed. `preview` is no step (the PDF stays as it is): the finished PDF's
 * first page imaged once every step has run.
 */
export type FinishingPlan = { [S in RequestStep['name']]?: PlanOf<S> } & { preview?: PreviewPlan };

/** Whether `definition` has work to do for `plan`. */
const asksWork = <Plan>(definition: StepDefinition<string, Plan, unknown>, plan: Plan | undefined): plan is Plan =>
  plan != null && (definition.asks?.(plan) ?? true);

/** True when the plan asks any registered step for work. */
export function wantsFinishing(plan: StepPlans, registry: readonly StepDefinition<string, never, unknown>[] = FINISHING_REGISTRY): boolean {
  return registry.some((definition) => asksWork(definition as StepDefinition<string, unknown, unknown>, (plan as Record<string, unknown>)[definition.name]));
}

/** The steps `finishPdf` runs for `plan`: every registered step that has work, made from its plan and the document's context. */
export async function finishingSteps(
  plan: StepPlans,
  context: StepContext,
  registry: readonly StepDefinition<string, never, unknown>[] = FINISHING_REGISTRY,
): Promise<Record<string, FinishingStep>> {
  const steps: Record<string, FinishingStep> = {};
  for (const definition of registry as readonly StepDefinition<string, unknown, unknown>[]) {
    const stepPlan = (plan as Record<string, unknown>)[definition.name];
    if (asksWork(definition, stepPlan)) steps[definition.name] = await definition.build(stepPlan, context);
  }
  return steps;
}

/** True when the finishing needs the page's title or language: the archive stage without both given. */
export function needsPageFacts(plan: FinishingPlan): boolean {
  return plan.archive != null && (plan.archive.metadata.title == null || plan.archive.metadata.language == null);
}
