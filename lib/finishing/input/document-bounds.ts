// The bounds of a caller's PDF, without the code that holds a document to them (pdf-input-bounds.ts, which
// loads pdf-lib): the request schemas state them in their descriptions and checks.

/**
 * Bounds of an existing PDF (pdf-input-bounds.ts holds a part
 * to them before and right after it is parsed): what its bytes may make
 * the parser and the merge's page copying do, whatever their size.
 */
export const MAX_DOCUMENT_OBJECTS = 50_000;
/** Most bytes a document's object and cross-reference streams (inflated while it is parsed) may inflate to, together. */
export const MAX_DOCUMENT_INFLATED_BYTES = 32 * 1024 * 1024;
/** Most entries a document's cross-reference streams may declare together (the parser loops over each). */
export const MAX_DOCUMENT_XREF_ENTRIES = 1_000_000;
/** Deepest nesting of arrays and dictionaries in one object, and of the page tree. */
export const MAX_DOCUMENT_NESTING = 64;
/** Deepest walk from a page through references, arrays and dictionaries (pdf-lib copies a page by recursion: 5,000 overflowed it). */
export const MAX_DOCUMENT_REFERENCE_DEPTH = 1_000;
/** Most pages of one document. */
export const MAX_DOCUMENT_PAGES = 2_000;
/** Most pages of all the documents of one merge together (copying 5,000 pages takes about 1.5 s). */
export const MAX_DOCUMENTS_PAGES = 5_000;
/** Longest page edge in points: 200 inches, the limit of ISO 32000-1 Annex C. */
export const MAX_PAGE_EDGE_POINTS = 14_400;
