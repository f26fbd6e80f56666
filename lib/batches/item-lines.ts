import * as v from 'valibot';
import { ValidationError } from '../errors.js';
import { BatchItemEntrySchema, MAX_ITEM_LINE_BYTES, MAX_ITEM_LINES, type BatchItemEntryOutput } from '../schemas/batch-requests.js';
import { issuesToFields, WHOLE_INPUT_KEY } from '../validation/parse.js';

/** Field errors one 400 names at most (as for inline items). */
const MAX_FIELD_ERRORS = 100;


const NEWLINE = 0x0a;

/**
 * A JSON Lines file of batch items read as it arrives: one JSON object per
 * line (blank lines, a final newline and CRLF endings allowed), each held to
 * what an entry of `items` takes. Every line is checked before any item is
 * returned: the problems are one ValidationError naming `items.<N>…`, N the
 * item's index (its place among the non-blank lines), at most 100 of them;
 * more than `maxItems` items, a line longer than MAX_ITEM_LINE_BYTES or one
 * that is not UTF-8 is an error on `itemsUrl` naming the line (1-based).
 * Each byte is looked at once: a line's bytes are kept as the chunks that
 * carried them and decoded once it ends.
 */
export async function readItemLines(chunks: AsyncIterable<Uint8Array>, maxItems = MAX_ITEM_LINES): Promise<BatchItemEntryOutput[]> {
  const items: BatchItemEntryOutput[] = [];
  const fields: Record<string, string> = {};
  const problem = (field: string, message: string) => {
    if (Object.keys(fields).length < MAX_FIELD_ERRORS) fields[field] = message;
  };
  let index = 0;
  const line = (text: string) => {
    if (text.trim() === '') return;
    if (index >= maxItems) throw new ValidationError({ itemsUrl: `Must list at most ${maxItems} items (one per line)` });
    const at = index++;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      problem(`items.${at}`, 'Must be one JSON object on one line');
      return;
    }
    const result = v.safeParse(BatchItemEntrySchema, value, { abortEarly: false });
    if (result.success) items.push(result.output);
    else for (const [field, message] of Object.entries(issuesToFields(result.issues))) problem(field === WHOLE_INPUT_KEY ? `items.${at}` : `items.${at}.${field}`, message);
  };

  // The current line's bytes so far: the tails of the chunks that carried it.
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let lineNumber = 1;
  const tooLong = () =>
    new ValidationError({ itemsUrl: `Line ${lineNumber} is longer than ${MAX_ITEM_LINE_BYTES / 1024 / 1024} MB: one item per line, each at most that` });
  const endLine = (tail: Uint8Array) => {
    const bytes = pending.length === 0 ? tail : Buffer.concat([...pending, tail]);
    pending = [];
    pendingBytes = 0;
    line(decodeLine(bytes, lineNumber));
    lineNumber += 1;
  };
  for await (const chunk of chunks) {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      if (pendingBytes + end - start > MAX_ITEM_LINE_BYTES) throw tooLong();
      endLine(chunk.subarray(start, end));
      start = end + 1;
    }
    if (start < chunk.length) {
      pendingBytes += chunk.length - start;
      if (pendingBytes > MAX_ITEM_LINE_BYTES) throw tooLong();
      pending.push(chunk.subarray(start));
    }
  }
  endLine(new Uint8Array(0));
  if (Object.keys(fields).length > 0) throw new ValidationError(fields);
  if (items.length === 0) throw new ValidationError({ itemsUrl: 'Must list at least one item' });
  return items;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * One whole line's text. A line ends at a 0x0A byte, which UTF-8 never uses
 * inside a character, so each line decodes on its own; only the decoder's
 * own refusal reads as "not UTF-8" (a TypeError from the source, a dropped
 * connection, stays what it is).
 */
function decodeLine(bytes: Uint8Array, lineNumber: number): string {
  try {
    return decoder.decode(bytes);
  } catch (error) {
    if (error instanceof TypeError && (error as { code?: string }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA') {
      throw new ValidationError({ itemsUrl: `Must be UTF-8 text (line ${lineNumber} is not)` });
    }
    throw error;
  }
}
