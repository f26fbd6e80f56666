/**
 * Errors of the delivery layer, apart from the code that throws them: the
 * edge maps them (lib/plan/request-errors.ts) without loading the fetcher.
 */

/** Why the document could not be fetched, phrased for the `documentUrl` field (never the URL itself: it may carry credentials). */
export class DocumentFetchError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'DocumentFetchError';
  }
}
