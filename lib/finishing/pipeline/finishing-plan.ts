// The plans of the finishing steps and the values they take (registry.ts assembles them into a render's
// FinishingPlan); no code of a step: the request schemas read the value sets here without loading one.

/** Names the service as the PDF's producer. */
export const PRODUCER = 'DocRender';

/** The PDF/A levels the service produces (the names Gotenberg's users know). */
export const PDFA_LEVELS = ['PDF/A-2b', 'PDF/A-2u', 'PDF/A-3b', 'PDF/A-3u'] as const;
export type PdfaLevel = (typeof PDFA_LEVELS)[number];

/** The relationships a caller may name for an attachment (PDF 2.0 / PDF/A-3 `AFRelationship`). */
export const ATTACHMENT_RELATIONSHIPS = ['Source', 'Data', 'Alternative', 'Supplement', 'Unspecified'] as const;
export type AttachmentRelationship = (typeof ATTACHMENT_RELATIONSHIPS)[number];

/** Document metadata as the caller (or the page) gave it. */
export type DocumentMetadata = {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string[];
  creator?: string;
  /** BCP 47 tag. */
  language?: string;
  creationDate?: Date;
  modificationDate?: Date;
};

/** One file to embed. */
export type Attachment = {
  name: string;
  content: Uint8Array;
  mimeType: string;
  description?: string;
  relationship: AttachmentRelationship;
};

/** The archive stage's settings: the caller's metadata, the PDF/A level, PDF/UA, extra XMP (the e-invoice's). */
export type ArchivePlan = {
  metadata: DocumentMetadata;
  pdfa?: PdfaLevel;
  pdfua: boolean;
  xmp?: { descriptions: string[]; extensionSchemas: string[] };
};

/** The nine anchors a stamp is placed at. */
export type StampPosition = 'center' | 'top' | 'bottom' | 'left' | 'right' | 'topLeft' | 'topRight' | 'bottomLeft' | 'bottomRight';

/** The stamp stage's settings, every default applied: what is drawn, how, where, on which pages. */
export type StampPlan = {
  mark: { text: string; fontSize: number; color: string; fontFamily?: string } | { image: { kind: 'png' | 'jpeg'; bytes: Uint8Array } };
  opacity: number;
  /** Degrees, counter-clockwise. */
  rotation: number;
  position: StampPosition;
  layer: 'over' | 'under';
  /** Pages to stamp, in pageRanges syntax (counted once the document is assembled); empty for all. */
  pages: string;
};

/**
 * The pages stage's settings: which pages the document keeps, in which order
 * (`pdf.pages`, a valid order string; absent keeps them all), then which of
 * those turn by how much (`pdf.rotate`, its pages counted after the choice).
 */
export type PagesPlan = {
  order?: string;
  rotate?: { angle: 90 | 180 | 270; pages: string };
};

/** A value for a form field: text (a text field, a radio group, a single choice), a check box's state, a multiple choice. */
export type FormValue = string | boolean | string[];

/**
 * The form stage's settings: the values by field name (`pdf.form.fields`),
 * and what is flattened after: nothing, the form's fields
 * (`pdf.form.flatten`), or the fields and every annotation (`pdf.flatten`).
 */
export type FormPlan = {
  /** Absent when only `pdf.flatten` was asked: a document without a form is then no error. */
  fields?: Record<string, FormValue>;
  flatten: 'none' | 'fields' | 'all';
};

/** The protect stage's settings: the passwords, and every permission decided (defaults applied). */
export type ProtectPlan = {
  userPassword?: string;
  ownerPassword?: string;
  permissions: {
    print: 'none' | 'lowResolution' | 'highResolution';
    modify: boolean;
    copy: boolean;
    annotate: boolean;
    fillForms: boolean;
    accessibility: boolean;
    assemble: boolean;
  };
};

/** The sign stage's settings: the signer by name (checked against the deployment at the edge), the level, the dictionary's texts. */
export type SignPlan = {
  signer: string;
  level: 'B-B' | 'B-T' | 'B-LT' | 'B-LTA';
  reason?: string;
  location?: string;
  contactInfo?: string;
  name?: string;
  certify?: 'noChanges' | 'formFilling' | 'annotations';
  /** A visible signature: the page (1-based, negative from the end), the rectangle in points, and what it shows (default text when neither). */
  appearance?: { page: number; x: number; y: number; width: number; height: number; text?: string; image?: { kind: 'png' | 'jpeg'; bytes: Uint8Array } };
};

/** The compress stage's settings, every default applied (issue 34). */
export type CompressPlan = { imageQuality: number; maxImageDpi: number; grayscale: boolean };

/** The image of the finished PDF's first page stored beside it (`pdf.preview`, issue 34), defaults applied. */
export type PreviewPlan = { width: number; type: 'png' | 'jpeg' | 'webp' };

/** What the page says of itself (read in the session), for metadata the caller left out. */
export type PageFacts = { title?: string; language?: string };
