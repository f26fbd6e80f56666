/** The `assemble` step: a merge's printed parts and existing PDFs made one document, each part an outline entry. */
import { defineInternalStep } from '../../pipeline/step-definition.js';
import type { AssemblyPart } from './assemble.js';

/** The `assemble` step's plan: the printed parts after the first (which is the document the step is given), and whether their outlines nest. */
export type AssemblePlan = { first: { title?: string | null | undefined }; others: AssemblyPart[]; outline: boolean };

export const assembleDefinition = defineInternalStep({
  name: 'assemble',
  options: { notFromRequest: 'Its plan is the printed parts of a merge: the document renderer makes it once they are printed.' },
  build: async ({ first, others, outline }: AssemblePlan) => (await import('./assemble.js')).assembleStep(first, others, outline),
});
