import * as v from 'valibot';
import { ValidationError } from '../errors.js';
import { BatchItemEntrySchema, MAX_ITEM_LINES, type BatchItemEntryOutput } from '../schemas/batch-requests.js';
import { issuesToFields, WHOLE_INPUT_KEY } from '../validation/parse.js';

/** Field errors one 400 names at most (as for inline items). */
const MAX_FIELD_ERRORS = 100;

/**
 * A JSON Lines file of batch items read as it arrives: one JSON object per
 * line (blank lines, a final newline and CRLF endings allowed), each held to
 * what an entry of `items` takes. Every line is checked before any item is
 * returned: the problems are one ValidationError naming `items.<N>…`, N the
 * item's index (its place among the non-blank lines), at most 100 of them;
 * more than `maxItems` items is an error on `itemsUrl`.
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
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let rest = '';
  try {
    for await (const chunk of chunks) {
      const text = rest + decoder.decode(chunk, { stream: true });
      const lines = text.split('\n');
      rest = lines.pop() ?? '';
      for (const each of lines) line(each);
    }
    line(rest + decoder.decode());
  } catch (error) {
    if (error instanceof TypeError) throw new ValidationError({ itemsUrl: 'Must be UTF-8 text' });
    throw error;
  }
  if (Object.keys(fields).length > 0) throw new ValidationError(fields);
  if (items.length === 0) throw new ValidationError({ itemsUrl: 'Must list at least one item' });
  return items;
}
