/** The `bands` step: a running header and footer printed from real HTML and laid over the final pages. */
import { defineInternalStep, type BandsRun } from '../../pipeline/step-definition.js';

export const bandsDefinition = defineInternalStep({
  name: 'bands',
  options: {
    notFromRequest:
      "Its plan rides on the print plan (PdfPlan.bands), because the print itself reads the bands' section headings and leaves their room: lib/plan makes it with the print, and the document renderer adds it once it has printed.",
  },
  build: async ({ bands, facts }: BandsRun, context) => {
    if (!context.printBand || !context.loadTemplates) throw new Error('Bands were asked of a finishing without a band printer and templates');
    return (await import('./bands.js')).bandsStep(bands, facts, context.printBand, () => context.now, context.loadTemplates);
  },
});
