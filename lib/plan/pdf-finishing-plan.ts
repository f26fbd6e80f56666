/**
 * From a `pdf` object's options to its finishing plan: each step's
 * definition makes its own (lib/finishing/pipeline/finishing-options.ts);
 * here, at the edge, the plan gets what it needs from the request (the
 * page's template data, the template renderer for an invoice's
 * `xmlTemplate`), and an option the definitions refuse becomes the 400
 * naming `pdf.<path>`.
 */
import { planFinishing } from '../finishing/pipeline/finishing-options.js';
import type { PlanContext } from '../finishing/pipeline/step-definition.js';
import type { FinishingPlan } from '../finishing/pipeline/registry.js';
import { OptionError } from '../pdf/errors.js';
import { needTemplates, type TemplateRenderer } from '../templates/template-engine.js';
import { optionFailure } from './request-errors.js';

/** The finishing plan the `pdf` options ask for; `templateData` fills an invoice `xmlTemplate` (rendered by `templates`). */
export function pdfFinishingPlan(
  pdf: Readonly<Record<string, unknown>> | null | undefined,
  templateData?: Record<string, unknown> | null,
  templates?: TemplateRenderer,
): FinishingPlan {
  const context: PlanContext = {
    templateData: templateData ?? null,
    // A process request has no page, so no template data: its schema refuses an invoice template.
    renderXmlTemplate: (template, data) => needTemplates(templates)(template, data, { field: 'pdf.eInvoice.xmlTemplate', xml: true }),
  };
  try {
    return planFinishing(pdf, context);
  } catch (error) {
    throw error instanceof OptionError ? optionFailure(error) : error;
  }
}
