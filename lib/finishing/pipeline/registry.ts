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
 * no finishing to do), so this file imports types only.
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
import type { AssemblyPart } from '../steps/assemble/assemble.js';
import type { DocumentBudget } from '../../budget/document-budget.js';
import type { Attachment } from './finishing-plan.js';
import type { BandFacts, BandsPlan, BandTemplateRenderer } from '../steps/bands/bands-plan.js';
import type { BandPrinter } from '../steps/bands/bands.js';
import type { ArchivePlan, CompressPlan, FormPlan, PageFacts, PagesPlan, PreviewPlan, ProtectPlan, SignPlan, StampPlan } from './finishing-plan.js';
import type { FinishingStep } from './step-types.js';
import type { TextDrawer } from '../steps/stamp/watermark.js';
import type { SignerRegistry } from '../../signing/signers.js';

/** Names the service as the PDF's producer. */
export const PRODUCER = 'DocRender';

/** What a step is given besides its plan: the same for every step of one document. */
export type StepContext = {
  /** The document's one "now" (its dates, its signature time), read once. */
  now: Date;
  /** What the printed page said of itself, for the metadata the caller left out (none for an existing PDF). */
  facts: PageFacts;
  /** Prints a text stamp or a signature's text with the service's Chromium. */
  drawText: TextDrawer;
  /** Prints a band document (the bands step). */
  printBand?: BandPrinter;
  /** Loads the template renderer a band written as a template needs (the bands step). */
  loadTemplates?: () => Promise<BandTemplateRenderer>;
  /** The deployment's signers (a plan with a signature was checked against them at the edge). */
  signers?: SignerRegistry;
};

/**
 * One finishing step: its stage name, whether a plan asks it for any work
 * (a plan that is present asks, unless `asks` says otherwise: an empty list
 * of attachments asks for nothing), and how it runs (`build` loads its
 * module and makes the step from the plan).
 */
export type StepDefinition<Name extends string, Plan> = {
  readonly name: Name;
  readonly asks?: (plan: Plan) => boolean;
  readonly build: (plan: Plan, context: StepContext) => Promise<FinishingStep>;
};

/** A definition with its plan's type taken from `build`. */
const define = <const Name extends string, Plan>(definition: StepDefinition<Name, Plan>): StepDefinition<Name, Plan> => definition;

/** The `assemble` step's plan: the printed parts after the first (which is the document the step is given), and whether their outlines nest. */
export type AssemblePlan = { first: { title?: string | null | undefined }; others: AssemblyPart[]; outline: boolean };

/**
 * The `bands` step's plan: the header and footer, and what the printed document said for their variables
 * (a merge's, read from its parts within the step: `facts` is then how to read them).
 */
export type BandsRun = { bands: BandsPlan; facts: BandFacts | ((budget: DocumentBudget) => Promise<BandFacts>) };

/** The steps, in the order they run. Adding a step: its module, then one line here (docs/architecture.md). */
export const FINISHING_REGISTRY = [
  define({
    name: 'assemble',
    build: async ({ first, others, outline }: AssemblePlan) => (await import('../steps/assemble/assemble.js')).assembleStep(first, others, outline),
  }),
  define({ name: 'pages', build: async (plan: PagesPlan) => (await import('../steps/pages/pages.js')).pagesStep(plan) }),
  define({ name: 'form', build: async (plan: FormPlan) => (await import('../steps/form/form.js')).formStep(plan) }),
  define({
    name: 'bands',
    build: async ({ bands, facts }: BandsRun, context) => {
      if (!context.printBand || !context.loadTemplates) throw new Error('Bands were asked of a finishing without a band printer and templates');
      return (await import('../steps/bands/bands.js')).bandsStep(bands, facts, context.printBand, () => context.now, context.loadTemplates);
    },
  }),
  define({ name: 'stamp', build: async (plan: StampPlan, context) => (await import('../steps/stamp/watermark.js')).stampStep(plan, context.drawText) }),
  define({
    name: 'archive',
    build: async ({ metadata, pdfa, pdfua, xmp }: ArchivePlan, context) =>
      (await import('../steps/archive/archive.js')).archiveStep({
        metadata: { ...metadata, title: metadata.title ?? context.facts.title, language: metadata.language ?? context.facts.language },
        producer: PRODUCER,
        ...(pdfa ? { pdfa } : {}),
        pdfua,
        ...(xmp ? { xmp } : {}),
        now: () => context.now,
      }),
  }),
  define({
    name: 'attach',
    asks: (files: Attachment[]) => files.length > 0,
    build: async (files: Attachment[], context) => (await import('../steps/attach/attachments.js')).attachStep(files, () => context.now),
  }),
  define({ name: 'compress', build: async (plan: CompressPlan) => (await import('../steps/compress/compress.js')).compressStep(plan) }),
  define({ name: 'protect', build: async (plan: ProtectPlan) => (await import('../steps/protect/protect.js')).protectStep(plan) }),
  define({
    name: 'sign',
    build: async (plan: SignPlan, context) => {
      if (!context.signers) throw new Error('A signature was asked of a renderer without signers');
      return (await import('../steps/sign/sign.js')).signStep(plan, context.signers, context.drawText, () => context.now);
    },
  }),
] as const;

type Registry = typeof FINISHING_REGISTRY;

/** A stage of the finishing pipeline: a registered step's name. */
export type FinishingStage = Registry[number]['name'];

/** The order the steps run in: the registry's. */
export const FINISHING_ORDER: readonly FinishingStage[] = FINISHING_REGISTRY.map((definition) => definition.name);

/** The plan of the step named `S`, as its definition takes it. */
export type PlanOf<S extends FinishingStage> = Extract<Registry[number], { name: S }> extends StepDefinition<S, infer Plan> ? Plan : never;

/** A plan for each step that is asked for; a step without one is skipped. */
export type StepPlans = { [S in FinishingStage]?: PlanOf<S> };

/** The steps a document runs, by stage; a stage without a step is skipped. */
export type FinishingSteps = Partial<Record<FinishingStage, FinishingStep>>;

/**
 * What a render plan asks of the finishing stage: the plans of the steps the
 * request's options make (lib/plan builds them). Two steps are not among
 * them, for one reason each: `assemble`'s plan is the printed parts, and
 * `bands`' plan rides on the print plan (`PdfPlan.bands`) because the print
 * itself reads its section headings; the document renderer adds both once it
 * has them. `preview` is no step (the PDF stays as it is): the finished
 * PDF's first page imaged once every step has run.
 */
export type FinishingPlan = Omit<StepPlans, 'assemble' | 'bands'> & { preview?: PreviewPlan };

/** Whether `definition` has work to do for `plan`. */
const asksWork = <Plan>(definition: StepDefinition<string, Plan>, plan: Plan | undefined): plan is Plan =>
  plan != null && (definition.asks?.(plan) ?? true);

/** True when the plan asks any registered step for work. */
export function wantsFinishing(plan: StepPlans, registry: readonly StepDefinition<string, never>[] = FINISHING_REGISTRY): boolean {
  return registry.some((definition) => asksWork(definition as StepDefinition<string, unknown>, (plan as Record<string, unknown>)[definition.name]));
}

/** The steps `finishPdf` runs for `plan`: every registered step that has work, made from its plan and the document's context. */
export async function finishingSteps(
  plan: StepPlans,
  context: StepContext,
  registry: readonly StepDefinition<string, never>[] = FINISHING_REGISTRY,
): Promise<Record<string, FinishingStep>> {
  const steps: Record<string, FinishingStep> = {};
  for (const definition of registry as readonly StepDefinition<string, unknown>[]) {
    const stepPlan = (plan as Record<string, unknown>)[definition.name];
    if (asksWork(definition, stepPlan)) steps[definition.name] = await definition.build(stepPlan, context);
  }
  return steps;
}

/** True when the finishing needs the page's title or language: the archive stage without both given. */
export function needsPageFacts(plan: FinishingPlan): boolean {
  return plan.archive != null && (plan.archive.metadata.title == null || plan.archive.metadata.language == null);
}
