import type { FinishingOptions, FinishingSteps } from './finish-pdf.js';
import { protectStep } from './protect.js';
import { stampStep, type TextDrawer } from './watermark.js';

/** The steps the finishing options of `pdf` ask for, by stage. */
export function finishingSteps(pdf: FinishingOptions | null | undefined, drawText: TextDrawer): FinishingSteps {
  const steps: FinishingSteps = {};
  if (pdf?.watermark != null) steps.stamp = stampStep(pdf.watermark, drawText);
  if (pdf?.protection != null) steps.protect = protectStep(pdf.protection);
  return steps;
}
