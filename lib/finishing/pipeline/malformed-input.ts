/**
 * What pdf-lib throws when a caller's document is not built as the
 * specification says (a /Kids that is a number, an /Opt of dictionaries, a
 * widget without a /Rect): the caller's document that cannot be used, an
 * `InputPdfError` naming the problem (a 400 naming `document` at the edge),
 * never a 500.
 *
 * Which errors those are is told by their name, not by a list of the errors
 * to spare: pdf-lib's own classes (NumberParsingError, CorruptPageTreeError…)
 * leave the name `Error`, its assertions throw `TypeError`, its many plain
 * throws are `Error`, and JavaScript trips on a structure that is not what it
 * should be with `TypeError` or `RangeError`. Every error this service raises
 * on purpose names itself (OptionError, InputPdfError, the budget's, the
 * signing's, BandPrintRefusedError, and whatever comes through a step's
 * context from the renderer: a RenderTimeoutError stays a timeout) and passes
 * as it is, whether finishing knows its class or not.
 */
import { InputPdfError } from '../../pdf/errors.js';

/** The names of the errors nobody named: what a library or the language throws on data it did not expect. */
const UNNAMED = new Set(['Error', 'TypeError', 'RangeError']);

/** `error` as the caller's document's problem (`what` failed: "The form could not be filled"), unless it is an error raised on purpose (it names itself). */
export function malformedInput(error: unknown, what: string): unknown {
  if (error instanceof Error && !UNNAMED.has(error.name)) return error;
  const reason = error instanceof Error && error.message ? `: ${error.message.split('\n')[0]?.slice(0, 200)}` : '';
  return new InputPdfError(`${what}: the document is malformed${reason}`, { cause: error });
}
