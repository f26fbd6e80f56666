import { archiveStep } from './archive.js';
import { attachStep } from './attachments.js';
import { compressStep } from './compress.js';
import type { FinishingSteps } from './finish-pdf.js';
import { PRODUCER, type FinishingPlan, type PageFacts } from './finishing-plan.js';
import { formStep } from './form.js';
import { pagesStep } from './pages.js';
import { protectStep } from './protect.js';
import { signStep } from './sign.js';
import type { SignerRegistry } from '../signing/signers.js';
import { stampStep, type TextDrawer } from './watermark.js';

/**
 * The steps `finishPdf` runs for a plan's finishing settings (the assemble
 * step of a merge is the finishing renderer's); `facts` fill the title and
 * language the caller left out; `drawText` prints a text stamp; `signers`
 * are the deployment's (a plan with a signature was checked against them at the edge).
 */
export function finishingSteps(plan: FinishingPlan, facts: PageFacts, drawText: TextDrawer, signers?: SignerRegistry): FinishingSteps {
  const now = new Date();
  const steps: FinishingSteps = {};
  if (plan.pages) steps.pages = pagesStep(plan.pages);
  if (plan.form) steps.form = formStep(plan.form);
  if (plan.stamp) steps.stamp = stampStep(plan.stamp, drawText);
  if (plan.archive) {
    const { metadata, pdfa, pdfua, xmp } = plan.archive;
    steps.archive = archiveStep({
      metadata: { ...metadata, title: metadata.title ?? facts.title, language: metadata.language ?? facts.language },
      producer: PRODUCER,
      ...(pdfa ? { pdfa } : {}),
      pdfua,
      ...(xmp ? { xmp } : {}),
      now: () => now,
    });
  }
  if (plan.attach && plan.attach.length > 0) steps.attach = attachStep(plan.attach, () => now);
  if (plan.compress) steps.compress = compressStep(plan.compress);
  if (plan.protect) steps.protect = protectStep(plan.protect);
  if (plan.sign) {
    if (!signers) throw new Error('A signature was asked of a renderer without signers');
    steps.sign = signStep(plan.sign, signers, drawText, () => now);
  }
  return steps;
}
