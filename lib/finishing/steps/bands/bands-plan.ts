// Types only: the plan and the page's facts travel through the render layer, the step (bands.ts) loads with the finishing.

/** A band's HTML: a document to fill by classes, or a Handlebars template (base64, as the caller gave it) rendered per page. */
export type BandSource = { kind: 'html'; html: string } | { kind: 'template'; template: string };

/**
 * One band (header or footer), every default applied; `name` is its option, which names it in errors
 * (`header`, `footer.height`: paths inside the pdf options, which the edge puts under `pdf.` or a part's).
 */
export type BandPlan = {
  name: 'header' | 'footer';
  /** Height in points. */
  height: number;
  /** Pages that carry it, in pageRanges syntax; empty for all. */
  pages: string;
  main: BandSource;
  firstPage?: BandSource;
  evenPages?: BandSource;
};

/**
 * The running header and footer of a render, and the headings their `section` is read from; `timeZone` the zone
 * their `date` is written in (the page's `timezone`, else UTC); `templateData` the render's, beside the band
 * variables in a band's `htmlTemplate` (a band variable wins over data of the same name).
 */
export type BandsPlan = { header?: BandPlan; footer?: BandPlan; sectionHeadings: string; timeZone?: string; templateData?: Record<string, unknown> };

/** What the page says for its bands, read in its session before the print: title, URL, and the section headings in document order. */
export type BandFacts = {
  title: string;
  url: string;
  /**
   * Each heading's id (given one when it had none: its named destination in the PDF) and its text; or, for
   * a merge, its page (0-based) in the merged document, located from its part before the parts were assembled.
   */
  headings: Array<{ id: string; text: string } | { page: number; text: string }>;
};

/**
 * Renders a band's Handlebars template (base64) with its data; a template that fails throws an `OptionError`
 * naming `field`, a path inside the pdf options (`footer.evenPages.htmlTemplate`).
 */
export type BandTemplateRenderer = (templateBase64: string, data: unknown, options: { field: string }) => string;
