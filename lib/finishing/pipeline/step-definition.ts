/**
 * What a finishing step is (issue 45): one definition that says everything
 * about it. Its name; the options a caller writes in `pdf` to ask for it
 * (valibot entries, documented, which the request schemas and the OpenAPI
 * document take as they are), the rules between them and other options, and
 * where they may not be given (a merge part, an existing PDF); how those
 * options become its plan; whether a plan asks for work; and how it runs.
 * The registry (registry.ts) lists the definitions in order, and every list
 * a render needs is derived from it.
 *
 * A definition module loads no PDF library: the request schemas read its
 * options on every cold start, and `build` imports the step's code only
 * when a document needs it.
 */
import type * as v from 'valibot';
import type { DocumentBudget } from '../../budget/document-budget.js';
import type { SignerRegistry } from '../../signing/signers.js';
import type { FieldConflict } from '../../validation/field-rules.js';
import type { PageFacts } from './finishing-plan.js';
import type { FinishingStep } from './step-types.js';
import type { BandFacts, BandsPlan, BandTemplateRenderer } from '../steps/bands/bands-plan.js';
import type { BandPrinter } from '../steps/bands/bands.js';
import type { TextDrawer } from '../steps/stamp/watermark.js';

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

/** What making a plan from options may need beyond them: the page's template data and a renderer for an XML template (the e-invoice's). */
export type PlanContext = {
  templateData?: Record<string, unknown> | null;
  /** Renders a Handlebars template (base64) with XML escaping; absent where no template may be rendered. */
  renderXmlTemplate?: (templateBase64: string, data: Record<string, unknown>) => string;
};

/**
 * Where an option of a `pdf` object may not be given, with the 400's
 * message: in a merge part's own `pdf` (what applies to the merged file
 * once), or on an existing PDF (what only a print can make). `field` names a
 * sub-field when only that is refused (an invoice's `xmlTemplate`).
 */
export type OptionRefusal = { message: string; field?: string };

/** The values of a step's own options, each optional (the plan is made for any `pdf` object), and what else it `reads`. */
export type OptionValues<Entries extends v.ObjectEntries> = Partial<v.InferOutput<v.ObjectSchema<Entries, undefined>>> & { readonly [read: string]: unknown };

/**
 * The request side of a step: the `pdf` options it owns, the options of
 * other steps its plan reads (`reads`, so a plan sees only what it names),
 * the rules between options (each naming every field involved), where an
 * option is refused, and how the options become the plan (undefined when
 * they ask nothing of the step). Errors of `plan` name paths inside `pdf`
 * (an `OptionError` from lib/pdf/errors.ts); the edge prefixes them.
 */
export type StepOptions<Entries extends v.ObjectEntries, Plan> = {
  readonly entries: Entries;
  readonly reads?: readonly string[];
  readonly conflicts?: readonly FieldConflict[];
  readonly refused?: { readonly part?: { readonly [K in keyof Entries]?: OptionRefusal }; readonly existing?: { readonly [K in keyof Entries]?: OptionRefusal } };
  readonly plan: (options: OptionValues<Entries>, context: PlanContext) => Plan | undefined;
};

/** Why a step's plan is not made from a request's options (the document renderer makes it). */
export type NotFromRequest = { readonly notFromRequest: string };

/**
 * One finishing step: its stage name; its options (`defineStep`), or why its
 * plan is not made from the request (`defineInternalStep`: `assemble`,
 * `bands`); whether a plan asks it for any work (a plan that is present
 * asks, unless `asks` says otherwise: an empty list of attachments asks for
 * nothing); and how it runs (`build` loads its module and makes the step
 * from the plan). `build` and one of the two kinds of options are required:
 * a step that cannot run, or that no request can ask for without saying
 * why, does not compile.
 */
export type StepDefinition<Name extends string, Plan, Options = StepOptions<v.ObjectEntries, Plan> | NotFromRequest> = {
  readonly name: Name;
  readonly options: Options;
  readonly asks?: (plan: Plan) => boolean;
  readonly build: (plan: Plan, context: StepContext) => Promise<FinishingStep>;
};

/** A step a request asks for: its plan's type taken from `build`, its options' types from their entries. */
export const defineStep = <const Name extends string, Plan, const Entries extends v.ObjectEntries>(
  definition: StepDefinition<Name, Plan, StepOptions<Entries, Plan>>,
): StepDefinition<Name, Plan, StepOptions<Entries, Plan>> => definition;

/** A step whose plan the document renderer makes, with the reason. */
export const defineInternalStep = <const Name extends string, Plan>(
  definition: StepDefinition<Name, Plan, NotFromRequest>,
): StepDefinition<Name, Plan, NotFromRequest> => definition;

/** Options that are no step's (the finished PDF's preview): entries, refusals and a plan, like a step's. */
export const defineOptions = <const Entries extends v.ObjectEntries, Plan>(options: StepOptions<Entries, Plan>): StepOptions<Entries, Plan> => options;

/**
 * The `bands` step's plan: the header and footer, and what the printed document said for their variables
 * (a merge's, read from its parts within the step: `facts` is then how to read them).
 */
export type BandsRun = { bands: BandsPlan; facts: BandFacts | ((budget: DocumentBudget) => Promise<BandFacts>) };
