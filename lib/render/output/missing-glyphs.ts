/**
 * Characters a printed PDF draws with no glyph (issue 46, "never a silent
 * blank"). Chromium prints through Skia, which shows text by glyph id: a
 * character no font has is drawn as glyph 0, the font's `.notdef`, which in
 * Open Sans has no outline at all (a blank where the text should be, while
 * `pdftotext` still extracts it). So the printed file itself says what is
 * missing, exactly, per page:
 *
 * - Type0 fonts (TrueType faces, Identity-H): 2-byte codes that are glyph
 *   ids; code 0 is `.notdef`.
 * - Type3 fonts (Skia draws CFF/OpenType CJK faces and colour emoji so, in
 *   blocks of up to 256 glyphs): each code names its glyph in /Differences as
 *   `g<hex glyph id>`, unused codes of a block as `g0`; a code that names
 *   `g0` is `.notdef`, whatever block it is in.
 * - The characters come from the `/Span <</ActualText …>>` Skia writes
 *   around a cluster whose glyph does not map back to its text, else from the
 *   font's /ToUnicode. Skia takes the first character it draws with a glyph 0
 *   of a font as that glyph's own (no span, and not in /ToUnicode either):
 *   that one is counted but cannot be named from the file (`unnamed`); the
 *   caller names it another way (the page probe, page/glyph-probe.ts).
 *
 * Stamps and bands are Chromium prints merged in as Form XObjects, so `Do`
 * is followed (depth-bounded, each form read once). The reader is this
 * module's own (no pdf-lib: the renderers keep it out of a cold start, and
 * pdf-lib has no reader of content streams to offer): the
 * objects are found by a sequential pass that steps over stream data, object
 * streams (pdf-lib's compact saves) are read, and an encrypted file is not
 * read at all (the scan runs before the protect step). Every loop checks
 * the budget; a budget that runs out gives a `partial` scan, never an error.
 */
import { inflateSync } from 'node:zlib';
import { BudgetDeadlineError, documentBudget, DocumentBudgetError, type DocumentBudget } from '../../budget/document-budget.js';

/** Most code points a report names (the count goes on): a header and a JSON field stay small. */
export const MAX_REPORTED_CODE_POINTS = 64;
/** Form XObjects nested deeper than this are not followed (Skia nests one or two). */
const MAX_FORM_DEPTH = 12;
/** Pages-tree depth followed; a real tree is a few levels. */
const MAX_TREE_DEPTH = 64;
/** Arrays and dictionaries nested deeper than this end the read. */
const MAX_NESTING = 100;
/** Content tokens between two clock reads. */
const TOKENS_PER_CHECK = 4096;

/** What the scan found: characters drawn as `.notdef`, per the whole document. */
export type GlyphScan = {
  /** `.notdef` glyphs drawn (an invisible character that is ignorable is not counted). */
  count: number;
  /** The characters named, in order of first appearance, distinct, `U+XXXX`; at most MAX_REPORTED_CODE_POINTS. */
  codePoints: string[];
  /** The first page (1-based) that draws one; 0 when none. */
  firstPage: number;
  /** Of `count`, those whose character the file does not name. */
  unnamed: number;
  /** True when the budget ran out (or the file could not be read) before every page was read. */
  partial: boolean;
  /** Set when what stopped the scan was the file itself (malformed), not the budget. */
  unreadable?: true;
};

/** `U+XXXX` of a code point, four hex digits at least. */
export const codePointName = (codePoint: number) => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;

// Characters that draw nothing by design: a .notdef for one of them is no blank the reader misses.
const IGNORABLE = /^[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}]$/u;

/** The code points of `text` a reader would miss, as `U+XXXX` (ignorables dropped). */
export function visibleCodePoints(text: string): string[] {
  const out: string[] = [];
  for (const char of text) if (!IGNORABLE.test(char) && !/\s/u.test(char)) out.push(codePointName(char.codePointAt(0) as number));
  return out;
}

// ---------------------------------------------------------------------------
// Objects
// ---------------------------------------------------------------------------

type PdfName = { name: string };
type PdfRef = { ref: number };
type PdfDict = { dict: Map<string, PdfValue>; stream?: { start: number; end: number; bytes?: Uint8Array } };
type PdfValue = number | boolean | null | string | Uint8Array | PdfName | PdfRef | PdfValue[] | PdfDict;

const isName = (value: unknown): value is PdfName => typeof value === 'object' && value !== null && 'name' in value;
const isRef = (value: unknown): value is PdfRef => typeof value === 'object' && value !== null && 'ref' in value;
const isDict = (value: unknown): value is PdfDict => typeof value === 'object' && value !== null && 'dict' in value;

/** The scan stopped: the file is not one it can read to the end (encrypted, or a filter it does not decode). */
class UnreadableError extends Error {}

const WHITE = new Uint8Array(256);
for (const c of [0, 9, 10, 12, 13, 32]) WHITE[c] = 1;
const HEX = new Int8Array(256).fill(-1);
for (let c = 0; c < 16; c++) HEX[c.toString(16).charCodeAt(0)] = HEX[c.toString(16).toUpperCase().charCodeAt(0)] = c;
const DELIM = new Uint8Array(256);
for (const c of '()<>[]{}/%') DELIM[c.charCodeAt(0)] = 1;

/** A tokenizer and object parser over PDF bytes, from `pos`. */
function lexer(bytes: Uint8Array, pos = 0, end = bytes.length) {
  const skip = () => {
    while (pos < end) {
      const c = bytes[pos] as number;
      if (WHITE[c]) pos++;
      else if (c === 0x25) while (pos < end && bytes[pos] !== 10 && bytes[pos] !== 13) pos++;
      else break;
    }
  };
  const regular = () => {
    const start = pos;
    while (pos < end && !WHITE[bytes[pos] as number] && !DELIM[bytes[pos] as number]) pos++;
    return Buffer.from(bytes.buffer, bytes.byteOffset + start, Math.min(pos, start + 256) - start).toString('latin1');
  };
  /** The unsigned integer token at `pos` (moved past it), or -1 (`pos` unchanged) for any other token: most of a file's tokens, read without a string. */
  const integer = (): number => {
    let at = pos;
    let n = 0;
    for (; at < end; at++) {
      const c = bytes[at] as number;
      if (c < 0x30 || c > 0x39) break;
      n = n * 10 + c - 0x30;
    }
    if (at === pos || (at < end && !WHITE[bytes[at] as number] && !DELIM[bytes[at] as number]) || n > Number.MAX_SAFE_INTEGER) return -1;
    pos = at;
    return n;
  };
  const literal = (): Uint8Array => {
    const out: number[] = [];
    let depth = 1;
    pos++;
    while (pos < end) {
      const c = bytes[pos++] as number;
      if (c === 0x5c) {
        const e = bytes[pos++] as number;
        const simple: Record<number, number> = { 0x6e: 10, 0x72: 13, 0x74: 9, 0x62: 8, 0x66: 12 };
        if (simple[e] !== undefined) out.push(simple[e]);
        else if (e >= 0x30 && e <= 0x37) {
          let value = e - 0x30;
          for (let i = 0; i < 2 && (bytes[pos] as number) >= 0x30 && (bytes[pos] as number) <= 0x37; i++) value = value * 8 + (bytes[pos++] as number) - 0x30;
          out.push(value & 0xff);
        } else if (e === 13) {
          if (bytes[pos] === 10) pos++;
        } else if (e !== 10) out.push(e);
      } else if (c === 0x28) {
        depth++;
        out.push(c);
      } else if (c === 0x29) {
        if (--depth === 0) break;
        out.push(c);
      } else out.push(c);
    }
    return Uint8Array.from(out);
  };
  const hex = (): Uint8Array => {
    pos++;
    const digits: number[] = [];
    while (pos < end && bytes[pos] !== 0x3e) {
      const d = HEX[bytes[pos++] as number] as number;
      if (d >= 0) digits.push(d);
    }
    pos++;
    if (digits.length % 2) digits.push(0);
    const out = new Uint8Array(digits.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = ((digits[2 * i] as number) << 4) | (digits[2 * i + 1] as number);
    return out;
  };
  /** One value; `undefined` at the end; an operator (a bare keyword) as `{ op }`. */
  const value = (depth = 0): PdfValue | { op: string } | undefined => {
    skip();
    if (pos >= end) return undefined;
    // Nesting past any real file's: a hostile one would exhaust the stack.
    if (depth > MAX_NESTING) {
      pos = end;
      return undefined;
    }
    const c = bytes[pos] as number;
    if (c === 0x2f) {
      pos++;
      const name = regular();
      return { name: name.includes('#') ? name.replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))) : name };
    }
    if (c === 0x28) return literal();
    if (c === 0x3c && bytes[pos + 1] === 0x3c) {
      pos += 2;
      const dict = new Map<string, PdfValue>();
      for (;;) {
        skip();
        if (pos >= end) break;
        if (bytes[pos] === 0x3e && bytes[pos + 1] === 0x3e) {
          pos += 2;
          break;
        }
        const key = value(depth + 1);
        if (!isName(key)) {
          if (key === undefined) break;
          continue;
        }
        const item = value(depth + 1);
        if (item === undefined) break;
        if (typeof item === 'object' && item !== null && 'op' in item) continue;
        dict.set(key.name, item);
      }
      return { dict };
    }
    if (c === 0x3c) return hex();
    if (c === 0x5b) {
      pos++;
      const items: PdfValue[] = [];
      for (;;) {
        skip();
        if (pos >= end) break;
        if (bytes[pos] === 0x5d) {
          pos++;
          break;
        }
        const item = value(depth + 1);
        if (item === undefined) break;
        if (typeof item === 'object' && item !== null && 'op' in item) {
          // `N G R` inside an array: the R follows two numbers.
          if (item.op === 'R' && typeof items.at(-1) === 'number' && typeof items.at(-2) === 'number') {
            items.pop();
            items.push({ ref: items.pop() as number });
          }
          continue;
        }
        items.push(item);
      }
      return items;
    }
    if (c === 0x5d || c === 0x3e || c === 0x29 || c === 0x7b || c === 0x7d) {
      pos++;
      return { op: String.fromCharCode(c) };
    }
    if (c >= 0x30 && c <= 0x39) {
      const n = integer();
      if (n >= 0) {
        // `N G R` outside arrays (dictionary values).
        if (depth > 0) {
          const save = pos;
          skip();
          const generation = integer();
          skip();
          if (generation >= 0 && bytes[pos] === 0x52 && (pos + 1 >= end || WHITE[bytes[pos + 1] as number] || DELIM[bytes[pos + 1] as number])) {
            pos++;
            return { ref: n };
          }
          pos = save;
        }
        return n;
      }
    }
    const word = regular();
    if (word === '') {
      pos++;
      return { op: '' };
    }
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) {
      // `N G R` outside arrays (dictionary values).
      const save = pos;
      if (/^\d+$/.test(word) && depth > 0) {
        skip();
        const generation = regular();
        skip();
        if (/^\d+$/.test(generation) && bytes[pos] === 0x52 && (pos + 1 >= end || WHITE[bytes[pos + 1] as number] || DELIM[bytes[pos + 1] as number])) {
          pos++;
          return { ref: Number(word) };
        }
        pos = save;
      }
      return Number(word);
    }
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (word === 'null') return null;
    return { op: word };
  };
  return {
    value,
    skip,
    get pos() {
      return pos;
    },
    set pos(to: number) {
      pos = to;
    },
    regular,
  };
}

/** The bytes of `bytes` from `at` that spell `word`. */
const startsWith = (bytes: Uint8Array, at: number, word: string) => {
  for (let i = 0; i < word.length; i++) if (bytes[at + i] !== word.charCodeAt(i)) return false;
  return true;
};

/** The objects of a PDF, found by one pass that steps over stream data, object streams read on demand. */
function objectTable(bytes: Uint8Array, budget: DocumentBudget) {
  const offsets = new Map<number, number>();
  const packed = new Map<number, { stream: number; index: number }>();
  const streams: number[] = [];
  let encrypted = false;
  let root: PdfRef | undefined;
  const lex = lexer(bytes);
  const pattern = /(\d+)\s+(\d+)\s+obj\b|trailer\b/g;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let checks = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    if (++checks % 256 === 0) budget.check();
    lex.pos = match.index + match[0].length;
    const head = lex.value(1);
    if (match[1] === undefined) {
      if (isDict(head)) {
        if (head.dict.has('Encrypt')) encrypted = true;
        const r = head.dict.get('Root');
        if (isRef(r)) root = r;
      }
      continue;
    }
    const number = Number(match[1]);
    offsets.set(number, match.index + match[0].length);
    if (!isDict(head)) continue;
    lex.skip();
    if (!startsWith(bytes, lex.pos, 'stream')) continue;
    const type = head.dict.get('Type');
    if (isName(type) && type.name === 'XRef') {
      if (head.dict.has('Encrypt')) encrypted = true;
      const r = head.dict.get('Root');
      if (isRef(r)) root = r;
    }
    if (isName(type) && type.name === 'ObjStm') streams.push(number);
    // Step over the data, so bytes in it that look like `N G obj` are not taken for objects.
    let start = lex.pos + 6;
    if (bytes[start] === 13) start++;
    if (bytes[start] === 10) start++;
    const length = head.dict.get('Length');
    if (typeof length === 'number' && start + length <= bytes.length && startsWith(bytes.subarray(start + length).subarray(0, 20).filter((b) => !WHITE[b]), 0, 'endstream')) {
      pattern.lastIndex = start + length;
    } else {
      const endAt = text.indexOf('endstream', start);
      pattern.lastIndex = endAt < 0 ? bytes.length : endAt;
    }
  }
  const cache = new Map<number, PdfValue>();
  const streamObjects = new Map<number, Map<number, PdfValue>>();

  const parseAt = (offset: number): PdfValue => {
    lex.pos = offset;
    const parsed = lex.value(1);
    if (parsed === undefined || (typeof parsed === 'object' && parsed !== null && 'op' in parsed)) return null;
    if (isDict(parsed)) {
      lex.skip();
      if (startsWith(bytes, lex.pos, 'stream')) {
        let start = lex.pos + 6;
        if (bytes[start] === 13) start++;
        if (bytes[start] === 10) start++;
        let length = parsed.dict.get('Length');
        if (isRef(length)) length = get(length.ref);
        let end = typeof length === 'number' && start + length <= bytes.length ? start + length : -1;
        if (end < 0) {
          const at = text.indexOf('endstream', start);
          end = at < 0 ? bytes.length : at;
        }
        parsed.stream = { start, end };
      }
    }
    return parsed;
  };

  const readObjectStream = (number: number): Map<number, PdfValue> => {
    const known = streamObjects.get(number);
    if (known) return known;
    const found = new Map<number, PdfValue>();
    streamObjects.set(number, found);
    const container = get(number);
    if (!isDict(container) || !container.stream) return found;
    const data = streamData(container);
    const first = container.dict.get('First');
    const n = container.dict.get('N');
    if (typeof first !== 'number' || typeof n !== 'number') return found;
    const inner = lexer(data);
    const heads: Array<[number, number]> = [];
    for (let i = 0; i < n; i++) {
      const objectNumber = inner.value();
      const offset = inner.value();
      if (typeof objectNumber !== 'number' || typeof offset !== 'number') break;
      heads.push([objectNumber, offset]);
    }
    for (const [objectNumber, offset] of heads) {
      budget.check();
      inner.pos = first + offset;
      const parsed = inner.value(1);
      if (parsed !== undefined && !(typeof parsed === 'object' && parsed !== null && 'op' in parsed)) found.set(objectNumber, parsed);
    }
    return found;
  };

  const get = (number: number): PdfValue => {
    if (cache.has(number)) return cache.get(number) as PdfValue;
    cache.set(number, null);
    let parsed: PdfValue = null;
    const offset = offsets.get(number);
    if (offset !== undefined) parsed = parseAt(offset);
    else {
      for (const stream of streams) {
        const inside = readObjectStream(stream);
        if (inside.has(number)) {
          parsed = inside.get(number) as PdfValue;
          break;
        }
      }
    }
    cache.set(number, parsed);
    return parsed;
  };

  /**
   * A stream's data, decoded (FlateDecode only, as Skia and pdf-lib write), spending the budget's bytes;
   * kept for another read unless `keep` is false (a page's content, read once: a long print's is megabytes).
   */
  const streamData = (stream: PdfDict, keep = true): Uint8Array => {
    if (!stream.stream) return new Uint8Array(0);
    if (stream.stream.bytes) return stream.stream.bytes;
    const raw = bytes.subarray(stream.stream.start, stream.stream.end);
    let filter = resolve(stream.dict.get('Filter'));
    if (Array.isArray(filter)) filter = filter.length === 1 ? resolve(filter[0]) : filter.length === 0 ? undefined : filter;
    let data: Uint8Array;
    if (filter === undefined || filter === null) data = raw;
    else if (isName(filter) && filter.name === 'FlateDecode') {
      const ceiling = budget.left('inflatedBytes');
      // Output in one piece where it fits (content inflates some 4 to 8 times): zlib's default 16 KB pieces are copied together.
      const chunkSize = Math.min(Math.max(raw.length * 8, 16 * 1024), 4 * 1024 * 1024);
      try {
        data = inflateSync(raw, { chunkSize, maxOutputLength: Math.max(1, ceiling) });
      } catch (error) {
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new DocumentBudgetError('inflatedBytes', ceiling);
        // A stream zlib cannot finish: what it could inflate, as readers do.
        data = inflateSync(raw, { finishFlush: 2, maxOutputLength: Math.max(1, ceiling) });
      }
      budget.spend('inflatedBytes', data.byteLength);
    } else throw new UnreadableError('A filter the scan does not decode');
    if (keep) stream.stream.bytes = data;
    return data;
  };

  const resolve = (value: PdfValue | undefined, hops = 0): PdfValue | undefined => {
    let current = value;
    while (isRef(current) && hops++ < 32) current = get(current.ref);
    return current;
  };

  const catalogue = (): PdfDict | undefined => {
    const fromTrailer = root ? resolve(root) : undefined;
    if (isDict(fromTrailer)) return fromTrailer;
    // No trailer read (a damaged end): the last catalogue in the file.
    for (const number of [...offsets.keys()].reverse()) {
      const candidate = get(number);
      if (isDict(candidate) && isName(candidate.dict.get('Type')) && (candidate.dict.get('Type') as PdfName).name === 'Catalog') return candidate;
    }
    return undefined;
  };

  return { get, resolve, streamData, catalogue, encrypted: () => encrypted };
}

// ---------------------------------------------------------------------------
// Fonts
// ---------------------------------------------------------------------------

/** How a font's codes are read, and which of them draw `.notdef`. */
type FontReading = {
  /** 2: an Identity Type0 font, whose code 0 (CID 0) alone is `.notdef`; 1: Skia's Type3, whose `notdef` codes are. */
  bytesPerCode: 1 | 2;
  /** For 1-byte codes, 1 at each code that draws `.notdef`: a table, as it is read for every code shown. */
  notdef: Uint8Array;
  /** The characters /ToUnicode gives `code`, read on first need. */
  unicode: (code: number) => string | undefined;
};

/** The characters a /ToUnicode CMap gives each code (bfchar and bfrange). */
function toUnicodeMap(data: Uint8Array, budget: DocumentBudget): Map<number, string> {
  const map = new Map<number, string>();
  const lex = lexer(data);
  const code = (value: unknown) => (value instanceof Uint8Array ? value.reduce((n, b) => n * 256 + b, 0) : undefined);
  const text = (value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).swap16().toString('utf16le') : undefined);
  let mode: 'char' | 'range' | undefined;
  let items = 0;
  for (let item = lex.value(); item !== undefined; item = lex.value()) {
    if (++items % TOKENS_PER_CHECK === 0) budget.check();
    if (typeof item === 'object' && item !== null && 'op' in item) {
      mode = item.op === 'beginbfchar' ? 'char' : item.op === 'beginbfrange' ? 'range' : item.op.startsWith('end') ? undefined : mode;
      continue;
    }
    if (mode === 'char') {
      const to = lex.value();
      const from = code(item);
      const value = to instanceof Uint8Array && to.length % 2 === 0 ? text(to) : undefined;
      if (from !== undefined && value !== undefined && !map.has(from)) map.set(from, value);
    } else if (mode === 'range') {
      const last = code(lex.value());
      const to = lex.value();
      const first = code(item);
      if (first === undefined || last === undefined || last - first > 0xffff) continue;
      // A range may be 65,536 codes long, and a CMap may hold many.
      budget.check();
      for (let c = first; c <= last; c++) {
        if (map.has(c)) continue;
        if (Array.isArray(to)) {
          const entry = to[c - first];
          if (entry instanceof Uint8Array && entry.length % 2 === 0) map.set(c, text(entry) as string);
        } else if (to instanceof Uint8Array && to.length % 2 === 0 && to.length >= 2) {
          const base = Buffer.from(to);
          base.writeUInt16BE((base.readUInt16BE(base.length - 2) + (c - first)) & 0xffff, base.length - 2);
          map.set(c, text(base) as string);
        }
      }
    }
  }
  return map;
}

const NO_CODES = new Uint8Array(256);

/** The reading of a font dictionary; `undefined` for a font whose `.notdef` this scan cannot tell (simple fonts). */
function fontReading(font: PdfValue | undefined, objects: ReturnType<typeof objectTable>, budget: DocumentBudget): FontReading | undefined {
  if (!isDict(font)) return undefined;
  const subtype = objects.resolve(font.dict.get('Subtype'));
  let unicodes: Map<number, string> | undefined;
  const unicode = (code: number) => {
    if (!unicodes) {
      const stream = objects.resolve(font.dict.get('ToUnicode'));
      unicodes = isDict(stream) ? toUnicodeMap(objects.streamData(stream), budget) : new Map();
    }
    return unicodes.get(code);
  };
  if (isName(subtype) && subtype.name === 'Type0') {
    const encoding = objects.resolve(font.dict.get('Encoding'));
    // Another CMap would need reading to know which code is CID 0: Chromium writes only Identity.
    if (!isName(encoding) || (encoding.name !== 'Identity-H' && encoding.name !== 'Identity-V')) return undefined;
    // CID 0 is `.notdef` in every CIDFont (ISO 32000-2 §9.7.4.2); with Identity, the code is the CID.
    return { bytesPerCode: 2, notdef: NO_CODES, unicode };
  }
  if (isName(subtype) && subtype.name === 'Type3') {
    const encoding = objects.resolve(font.dict.get('Encoding'));
    const differences = isDict(encoding) ? objects.resolve(encoding.dict.get('Differences')) : undefined;
    if (!Array.isArray(differences)) return undefined;
    const notdef = new Uint8Array(256);
    let code = 0;
    let named = 0;
    for (const item of differences) {
      const value = objects.resolve(item);
      if (typeof value === 'number') code = value;
      else if (isName(value)) {
        // Skia's naming: every glyph `g` + its glyph id in hex. Another producer's Type3 names mean nothing here.
        if (!/^g[0-9A-F]+$/.test(value.name)) return undefined;
        if (code >= 0 && code < 256) notdef[code] = value.name === 'g0' ? 1 : 0;
        code++;
        named++;
      }
    }
    if (named === 0) return undefined;
    return { bytesPerCode: 1, notdef, unicode };
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Content
// ---------------------------------------------------------------------------

/** What one content stream (with the forms it draws) shows as `.notdef`: per character found, and those not named. */
type ContentFinding = { count: number; named: string[]; unnamed: number };

const utf16 = (bytes: Uint8Array): string =>
  bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff ? Buffer.from(bytes.subarray(2)).swap16().toString('utf16le') : Buffer.from(bytes).toString('latin1');

// Bytes of a regular token (an operator, a number, a name's letters): neither white space nor a delimiter.
const REGULAR = new Uint8Array(256);
for (let c = 0; c < 256; c++) REGULAR[c] = WHITE[c] || DELIM[c] ? 0 : 1;

// First bytes of the operators the content reader acts on: T, ', ", B, E, D.
const READ_FIRST = new Uint8Array(256);
for (const c of 'T\'"BED') READ_FIRST[c.charCodeAt(0)] = 1;

/** Just past the literal string whose `(` is at `at`: parentheses balance, a backslash escapes the next byte. */
function literalEnd(bytes: Uint8Array, at: number, end: number): number {
  let depth = 0;
  for (let i = at; i < end; i++) {
    const c = bytes[i] as number;
    if (c === 0x5c) i++;
    else if (c === 0x28) depth++;
    else if (c === 0x29 && --depth === 0) return i + 1;
  }
  return end;
}

/** Just past the hex string whose `<` is at `at`. */
function hexEnd(bytes: Uint8Array, at: number, end: number): number {
  for (let i = at + 1; i < end; i++) if (bytes[i] === 0x3e) return i + 1;
  return end;
}

/** Just past the dictionary whose `<<` is at `at` (nested dictionaries, and strings holding `>>`, stepped over). */
function dictEnd(bytes: Uint8Array, at: number, end: number): number {
  let depth = 0;
  let i = at;
  while (i < end) {
    const c = bytes[i] as number;
    if (c === 0x3c) {
      if (bytes[i + 1] === 0x3c) {
        depth++;
        i += 2;
      } else i = hexEnd(bytes, i, end);
    } else if (c === 0x3e && bytes[i + 1] === 0x3e) {
      i += 2;
      if (--depth === 0) return i;
    } else if (c === 0x28) i = literalEnd(bytes, i, end);
    else i++;
  }
  return end;
}

/** True when the regular token at [start, stop) is a value (a number, true, false, null), not an operator. */
function isOperand(bytes: Uint8Array, start: number, stop: number): boolean {
  const c = bytes[start] as number;
  // Digits, +, -, . begin numbers; no operator begins so.
  if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) return true;
  const length = stop - start;
  if (c === 0x74) return length === 4 && bytes[start + 1] === 0x72 && bytes[start + 2] === 0x75 && bytes[start + 3] === 0x65;
  if (c === 0x66) return length === 5 && bytes[start + 1] === 0x61 && bytes[start + 2] === 0x6c && bytes[start + 3] === 0x73 && bytes[start + 4] === 0x65;
  if (c === 0x6e) return length === 4 && bytes[start + 1] === 0x75 && bytes[start + 2] === 0x6c && bytes[start + 3] === 0x6c;
  return false;
}

/** A marked-content section: where its properties are (when inline), its ActualText once read. */
type MarkedSection = { start: number; end: number; text: string | null | undefined; reported: boolean };

/** Just past the `EI` ending the inline image whose `BI` ends at `at`: its data is binary, up to `EI` between white space. */
function inlineImageEnd(bytes: Uint8Array, at: number): number {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = buffer.indexOf('EI', at, 'latin1'); i >= 0; i = buffer.indexOf('EI', i + 1, 'latin1')) {
    if (WHITE[bytes[i - 1] as number] && (i + 2 >= bytes.length || WHITE[bytes[i + 2] as number])) return i + 2;
  }
  return bytes.length;
}

/**
 * Scans `pdf` for characters drawn as `.notdef`, within `budget`: its clock
 * checked in every loop, its inflated bytes spent; when it runs out, the
 * pages read so far as a `partial` scan.
 *
 * Content is read in place, byte by byte, keeping only where the last
 * operands lie: a print's content is mostly numbers and operators this scan
 * has no use for, and a string is looked into only when a font it can judge
 * shows it (a 350-page print is some 15 MB of content).
 */
export function scanMissingGlyphs(pdf: Uint8Array, budget: DocumentBudget): GlyphScan {
  const scan: GlyphScan = { count: 0, codePoints: [], firstPage: 0, unnamed: 0, partial: false };
  const seen = new Set<string>();
  const record = (finding: ContentFinding, page: number) => {
    if (finding.count === 0) return;
    scan.count += finding.count;
    scan.unnamed += finding.unnamed;
    if (scan.firstPage === 0) scan.firstPage = page;
    for (const point of finding.named) {
      if (seen.has(point)) continue;
      seen.add(point);
      if (scan.codePoints.length < MAX_REPORTED_CODE_POINTS) scan.codePoints.push(point);
    }
  };
  try {
    const objects = objectTable(pdf, budget);
    if (objects.encrypted()) throw new UnreadableError('Encrypted');
    const catalogue = objects.catalogue();
    const pagesRoot = catalogue ? objects.resolve(catalogue.dict.get('Pages')) : undefined;
    const forms = new Map<number, ContentFinding>();
    // A font is read once, whichever pages use it (Skia's fonts are shared by every page).
    const fontReadings = new Map<PdfDict, FontReading | undefined>();
    let untilCheck = TOKENS_PER_CHECK;

    /** The `.notdef` glyphs `content` draws with `resources`, following its forms to `depth`. */
    const readContent = (content: Uint8Array, resources: PdfValue | undefined, depth: number, open: Set<number>): ContentFinding => {
      const finding: ContentFinding = { count: 0, named: [], unnamed: 0 };
      const res = objects.resolve(resources);
      const fonts = isDict(res) ? objects.resolve(res.dict.get('Font')) : undefined;
      const xobjects = isDict(res) ? objects.resolve(res.dict.get('XObject')) : undefined;
      const readings = new Map<number | string, FontReading | undefined>();
      let font: FontReading | undefined;
      const marked: MarkedSection[] = [];
      const end = content.length;
      // The last operands since the last operator, as positions in `content` (-1: none).
      let nameStart = -1;
      let nameEnd = -1;
      let stringStart = -1;
      let stringEnd = -1;
      let arrayStart = -1;
      let arrayEnd = -1;
      let dictStart = -1;
      let dictStop = -1;
      let arrayDepth = 0;
      let arrayOpened = -1;

      const nameAt = (start: number, stop: number) => {
        const name = Buffer.from(content.buffer, content.byteOffset + start, Math.min(stop - start, 256)).toString('latin1');
        return name.includes('#') ? name.replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))) : name;
      };
      // A font name's key among this content's fonts: a short one's bytes as a number, as `Tf` comes with every run of text.
      const nameKey = (start: number, stop: number): number | string => {
        if (stop - start > 6) return nameAt(start, stop);
        let key = 1;
        for (let i = start; i < stop; i++) key = key * 256 + (content[i] as number);
        return key;
      };

      /** The innermost section's ActualText, each section's read on first need. */
      const spanText = (): MarkedSection | undefined => {
        for (let i = marked.length - 1; i >= 0; i--) {
          const section = marked[i] as MarkedSection;
          if (section.text === undefined) {
            section.text = null;
            if (section.start >= 0) {
              const properties = lexer(content, section.start, section.end).value(1);
              const actual = isDict(properties) ? properties.dict.get('ActualText') : undefined;
              if (actual instanceof Uint8Array) section.text = utf16(actual);
            }
          }
          if (section.text !== null) return section;
        }
        return undefined;
      };

      /** A `.notdef` drawn by `code` of `reading`: its characters from the span around it, else the font's /ToUnicode. */
      const notdef = (reading: FontReading, code: number) => {
        const span = spanText();
        if (span) {
          // One span is one cluster: its characters are reported once, whatever the glyphs it took.
          if (span.reported) return;
          span.reported = true;
          const points = visibleCodePoints(span.text as string);
          finding.count += points.length;
          finding.named.push(...points);
          return;
        }
        const text = reading.unicode(code);
        const points = text !== undefined ? visibleCodePoints(text) : undefined;
        if (points === undefined) {
          finding.count++;
          finding.unnamed++;
        } else if (points.length > 0) {
          finding.count += points.length;
          finding.named.push(...points);
        }
      };

      /** The string at [start, stop) shown in the current font: its codes read in place, hex digits as they come. */
      const show = (start: number, stop: number) => {
        const reading = font;
        if (!reading || start < 0) return;
        if (content[start] === 0x3c) {
          const digitsPerCode = reading.bytesPerCode * 2;
          let code = 0;
          let digits = 0;
          for (let i = start + 1; i < stop; i++) {
            const d = HEX[content[i] as number] as number;
            if (d < 0) continue;
            code = code * 16 + d;
            if (++digits < digitsPerCode) continue;
            if (digitsPerCode === 4 ? code === 0 : reading.notdef[code] === 1) notdef(reading, code);
            code = 0;
            digits = 0;
          }
          // A final odd digit is followed by 0 (ISO 32000-2 §7.3.4.3); a code left short draws nothing.
          if (digits % 2 === 1) {
            code *= 16;
            digits++;
          }
          if (digits === digitsPerCode && (digitsPerCode === 4 ? code === 0 : reading.notdef[code] === 1)) notdef(reading, code);
          return;
        }
        // A literal string (Chromium writes hex; another producer's stamp may not): decoded, escapes and all.
        const string = lexer(content, start, stop).value();
        if (!(string instanceof Uint8Array)) return;
        for (let i = 0; i + reading.bytesPerCode <= string.length; i += reading.bytesPerCode) {
          const code = reading.bytesPerCode === 2 ? ((string[i] as number) << 8) | (string[i + 1] as number) : (string[i] as number);
          if (reading.bytesPerCode === 2 ? code === 0 : reading.notdef[code] === 1) notdef(reading, code);
        }
      };

      /** The operator at [start, stop), with the operands before it. */
      const operate = (start: number, stop: number) => {
        const length = stop - start;
        const first = content[start] as number;
        const second = content[start + 1] as number;
        // BT and ET, the commonest of those read, first out.
        if (second === 0x54 && length === 2) return;
        if (length === 2 && first === 0x54) {
          if (second === 0x66) {
            // Tf
            if (nameStart < 0) return;
            const key = nameKey(nameStart, nameEnd);
            if (!readings.has(key)) {
              const dict = isDict(fonts) ? objects.resolve(fonts.dict.get(nameAt(nameStart, nameEnd))) : undefined;
              let reading: FontReading | undefined;
              if (isDict(dict)) {
                if (!fontReadings.has(dict)) fontReadings.set(dict, fontReading(dict, objects, budget));
                reading = fontReadings.get(dict);
              }
              readings.set(key, reading);
            }
            font = readings.get(key);
          } else if (second === 0x6a) show(stringStart, stringEnd); // Tj
          else if (second === 0x4a && arrayStart >= 0 && font) {
            // TJ: the array's strings, each on its own (a code never spans two).
            let depth = 0;
            for (let i = arrayStart + 1; i < arrayEnd - 1; ) {
              const c = content[i] as number;
              if (c === 0x3c && content[i + 1] === 0x3c) i = dictEnd(content, i, arrayEnd);
              else if (c === 0x3c || c === 0x28) {
                const after = c === 0x3c ? hexEnd(content, i, arrayEnd) : literalEnd(content, i, arrayEnd);
                if (depth === 0) show(i, after);
                i = after;
              } else {
                if (c === 0x5b) depth++;
                else if (c === 0x5d) depth--;
                i++;
              }
            }
          }
        } else if (length === 1 && (first === 0x27 || first === 0x22)) show(stringStart, stringEnd); // ' and "
        else if (length === 3 && first === 0x42 && second === 0x44 && content[start + 2] === 0x43) marked.push({ start: dictStart, end: dictStop, text: undefined, reported: false }); // BDC
        else if (length === 3 && first === 0x42 && second === 0x4d && content[start + 2] === 0x43) marked.push({ start: -1, end: -1, text: null, reported: false }); // BMC
        else if (length === 3 && first === 0x45 && second === 0x4d && content[start + 2] === 0x43) marked.pop(); // EMC
        else if (length === 2 && first === 0x44 && second === 0x6f) drawForm(); // Do
      };

      /** `Do`: a Form XObject's own content, read once per document whichever pages draw it. */
      const drawForm = () => {
        if (nameStart < 0 || !isDict(xobjects)) return;
        const ref = xobjects.dict.get(nameAt(nameStart, nameEnd));
        if (!isRef(ref) || depth >= MAX_FORM_DEPTH || open.has(ref.ref)) return;
        let inner = forms.get(ref.ref);
        if (!inner) {
          const form = objects.resolve(ref);
          const subtype = isDict(form) ? objects.resolve(form.dict.get('Subtype')) : undefined;
          if (!isDict(form) || !isName(subtype) || subtype.name !== 'Form') return;
          open.add(ref.ref);
          // A form without resources of its own uses its caller's (PDF 1.1 files do).
          inner = readContent(objects.streamData(form), form.dict.get('Resources') ?? resources, depth + 1, open);
          open.delete(ref.ref);
          forms.set(ref.ref, inner);
        }
        finding.count += inner.count;
        finding.unnamed += inner.unnamed;
        finding.named.push(...inner.named);
      };

      let pos = 0;
      while (pos < end) {
        const c = content[pos] as number;
        if (WHITE[c]) {
          pos++;
          continue;
        }
        if (--untilCheck === 0) {
          untilCheck = TOKENS_PER_CHECK;
          budget.check();
        }
        if (REGULAR[c]) {
          const start = pos;
          do pos++;
          while (pos < end && REGULAR[content[pos] as number]);
          // Numbers are most of a print's content, and none of them matters here; nor does an operator inside an array.
          if (arrayDepth > 0 || isOperand(content, start, pos)) continue;
          // Only operators of one to three bytes that begin so are read (Tf Tj TJ ' " BDC BMC EMC Do BI); the rest end their operands.
          if (pos - start <= 3 && READ_FIRST[c]) {
            operate(start, pos);
            // BI: an inline image, whose data is no content to read.
            if (pos - start === 2 && c === 0x42 && content[start + 1] === 0x49) pos = inlineImageEnd(content, pos);
          }
          nameStart = stringStart = arrayStart = dictStart = -1;
          continue;
        }
        switch (c) {
          case 0x2f: {
            nameStart = ++pos;
            while (pos < end && REGULAR[content[pos] as number]) pos++;
            nameEnd = pos;
            break;
          }
          case 0x28:
            stringStart = pos;
            pos = stringEnd = literalEnd(content, pos, end);
            break;
          case 0x3c:
            if (content[pos + 1] === 0x3c) {
              dictStart = pos;
              pos = dictStop = dictEnd(content, pos, end);
            } else {
              stringStart = pos;
              pos = stringEnd = hexEnd(content, pos, end);
            }
            break;
          case 0x5b:
            if (arrayDepth++ === 0) arrayOpened = pos;
            pos++;
            break;
          case 0x5d:
            pos++;
            if (arrayDepth > 0 && --arrayDepth === 0) {
              arrayStart = arrayOpened;
              arrayEnd = pos;
            }
            break;
          case 0x25:
            while (pos < end && content[pos] !== 10 && content[pos] !== 13) pos++;
            break;
          default:
            // A stray `)`, `>`, `{` or `}`.
            pos++;
        }
      }
      return finding;
    };

    /** The pages in order, inherited resources resolved. */
    let pageNumber = 0;
    const visit = (node: PdfValue | undefined, inherited: PdfValue | undefined, depth: number, visited: Set<PdfDict>) => {
      if (!isDict(node) || visited.has(node) || depth > MAX_TREE_DEPTH) return;
      visited.add(node);
      budget.check();
      const resources = node.dict.get('Resources') ?? inherited;
      const kids = objects.resolve(node.dict.get('Kids'));
      const type = objects.resolve(node.dict.get('Type'));
      if (Array.isArray(kids) && !(isName(type) && type.name === 'Page')) {
        for (const kid of kids) visit(objects.resolve(kid), resources, depth + 1, visited);
        return;
      }
      pageNumber++;
      const contents = objects.resolve(node.dict.get('Contents'));
      const parts = (Array.isArray(contents) ? contents.map((item) => objects.resolve(item)) : [contents]).filter(isDict);
      // The page's streams are one content: a span or a font may go on from one to the next.
      const chunks = parts.map((part) => objects.streamData(part, false));
      if (chunks.length === 1) {
        record(readContent(chunks[0] as Uint8Array, resources, 0, new Set()), pageNumber);
        return;
      }
      const joined = new Uint8Array(chunks.reduce((n, chunk) => n + chunk.length + 1, 0));
      let at = 0;
      for (const chunk of chunks) {
        joined.set(chunk, at);
        joined[at + chunk.length] = 10;
        at += chunk.length + 1;
      }
      record(readContent(joined, resources, 0, new Set()), pageNumber);
    };
    visit(pagesRoot, undefined, 0, new Set());
  } catch (error) {
    // A report never fails the render: what the budget (or a file the scan cannot read) left unread is said, not thrown.
    if (!(error instanceof BudgetDeadlineError || error instanceof DocumentBudgetError || error instanceof UnreadableError)) scan.unreadable = true;
    scan.partial = true;
  }
  return scan;
}
/** The scan's own budget: a slice of the render's time left, the document totals' bytes. */
export function scanBudget(deadline: { remaining(): number }): DocumentBudget {
  const budgetMs = Math.max(50, Math.min(SCAN_TIME_MS, deadline.remaining() / 4));
  return documentBudget({ at: Date.now() + budgetMs, budgetMs, totals: { inflatedBytes: SCAN_INFLATED_BYTES } });
}

/** Longest a scan of a printed PDF may take: past it, the report says `partial`. */
const SCAN_TIME_MS = 3_000;
/** Content and font bytes a scan may inflate: far above a 1,000-page print's content. */
const SCAN_INFLATED_BYTES = 512 * 1024 * 1024;
