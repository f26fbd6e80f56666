/**
 * The `attach` finishing step: files embedded in the PDF, each also listed
 * as an associated file of the document (`/AF`, with its relationship), which
 * is what PDF/A-3 asks of an embedded file and how Factur-X finds its XML.
 */
import { AFRelationship } from '@cantoo/pdf-lib';
import type { DocumentEdit } from '../../pipeline/step-types.js';

import { ATTACHMENT_RELATIONSHIPS, type Attachment, type AttachmentRelationship } from '../../pipeline/finishing-plan.js';

export { ATTACHMENT_RELATIONSHIPS, type AttachmentRelationship };


/** The `attach` step: embeds `files` in order, dated `now`; an edit of the open document (finishPdf parses and saves it). */
export function attachStep(files: Attachment[], now: () => Date = () => new Date()): DocumentEdit {
  return {
    edit: async (doc, budget) => {
      const date = now();
      for (const file of files) {
        budget.check();
        await doc.attach(file.content, file.name, {
          mimeType: file.mimeType,
          description: file.description,
          creationDate: date,
          modificationDate: date,
          afRelationship: AFRelationship[file.relationship],
        });
      }
    },
  };
}
