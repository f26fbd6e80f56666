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
 * module's own (no pdf-lib: the renderers keep it out of a cold start): the
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
      return { name: regular().replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))) };
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

  /** A stream's data, decoded (FlateDecode only, as Skia and pdf-lib write), spending the budget's bytes. */
  const streamData = (stream: PdfDict): Uint8Array => {
    if (!stream.stream) return new Uint8Array(0);
    if (stream.stream.bytes) return stream.stream.bytes;
    const raw = bytes.subarray(stream.stream.start, stream.stream.end);
    let filter = resolve(stream.dict.get('Filter'));
    if (Array.isArray(filter)) filter = filter.length === 1 ? resolve(filter[0]) : filter.length === 0 ? undefined : filter;
    let data: Uint8Array;
    if (filter === undefined || filter === null) data = raw;
    else if (isName(filter) && filter.name === 'FlateDecode') {
      const ceiling = budget.left('inflatedBytes');
      try {
        data = inflateSync(raw, { maxOutputLength: Math.max(1, ceiling) });
      } catch (error) {
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new DocumentBudgetError('inflatedBytes', ceiling);
        // A stream zlib cannot finish: what it could inflate, as readers do.
        data = inflateSync(raw, { finishFlush: 2, maxOutputLength: Math.max(1, ceiling) });
      }
      budget.spend('inflatedBytes', data.byteLength);
    } else throw new UnreadableError('A filter the scan does not decode');
    stream.stream.bytes = data;
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
  bytesPerCode: 1 | 2;
  isNotdef: (code: number) => boolean;
  /** The characters /ToUnicode gives `code`, read on first need. */
  unicode: (code: number) => string | undefined;
};

/** The characters a /ToUnicode CMap gives each code (bfchar and bfrange). */
function toUnicodeMap(data: Uint8Array): Map<number, string> {
  const map = new Map<number, string>();
  const lex = lexer(data);
  const code = (value: unknown) => (value instanceof Uint8Array ? value.reduce((n, b) => n * 256 + b, 0) : undefined);
  const text = (value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).swap16().toString('utf16le') : undefined);
  let mode: 'char' | 'range' | undefined;
  for (let item = lex.value(); item !== undefined; item = lex.value()) {
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

/** The reading of a font dictionary; `undefined` for a font whose `.notdef` this scan cannot tell (simple fonts). */
function fontReading(font: PdfValue | undefined, objects: ReturnType<typeof objectTable>): FontReading | undefined {
  if (!isDict(font)) return undefined;
  const subtype = objects.resolve(font.dict.get('Subtype'));
  let unicodes: Map<number, string> | undefined;
  const unicode = (code: number) => {
    if (!unicodes) {
      const stream = objects.resolve(font.dict.get('ToUnicode'));
      unicodes = isDict(stream) ? toUnicodeMap(objects.streamData(stream)) : new Map();
    }
    return unicodes.get(code);
  };
  if (isName(subtype) && subtype.name === 'Type0') {
    const encoding = objects.resolve(font.dict.get('Encoding'));
    // Another CMap would need reading to know which code is CID 0: Chromium writes only Identity.
    if (!isName(encoding) || (encoding.name !== 'Identity-H' && encoding.name !== 'Identity-V')) return undefined;
    // CID 0 is `.notdef` in every CIDFont (ISO 32000-2 §9.7.4.2); with Identity, the code is the CID.
    return { bytesPerCode: 2, isNotdef: (code) => code === 0, unicode };
  }
  if (isName(subtype) && subtype.name === 'Type3') {
    const encoding = objects.resolve(font.dict.get('Encoding'));
    const differences = isDict(encoding) ? objects.resolve(encoding.dict.get('Differences')) : undefined;
    if (!Array.isArray(differences)) return undefined;
    const names = new Map<number, string>();
    let code = 0;
    for (const item of differences) {
      const value = objects.resolve(item);
      if (typeof value === 'number') code = value;
      else if (isName(value)) names.set(code++, value.name);
    }
    // Skia's naming: every glyph `g` + its glyph id in hex. Another producer's Type3 names mean nothing here.
    if (names.size === 0 || ![...names.values()].every((name) => /^g[0-9A-F]+$/.test(name))) return undefined;
    return { bytesPerCode: 1, isNotdef: (c) => names.get(c) === 'g0', unicode };
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

/**
 * Scans `pdf` for characters drawn as `.notdef`, within `budget`: its clock
 * checked in every loop, its inflated bytes spent; when it runs out, the
 * pages read so far as a `partial` scan.
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
    let tokens = 0;

    /** The `.notdef` glyphs `content` draws with `resources`, following its forms to `depth`. */
    const readContent = (content: Uint8Array, resources: PdfValue | undefined, depth: number, open: Set<number>): ContentFinding => {
      const finding: ContentFinding = { count: 0, named: [], unnamed: 0 };
      const res = objects.resolve(resources);
      const fonts = isDict(res) ? objects.resolve(res.dict.get('Font')) : undefined;
      const xobjects = isDict(res) ? objects.resolve(res.dict.get('XObject')) : undefined;
      const readings = new Map<string, FontReading | undefined>();
      let font: FontReading | undefined;
      // The marked-content stack: each entry the ActualText of its span (undefined when it has none).
      const marked: Array<{ text?: string; reported: boolean }> = [];
      const operands: Array<PdfValue> = [];
      const lex = lexer(content);

      const show = (string: Uint8Array) => {
        if (!font) return;
        const span = [...marked].reverse().find((entry) => entry.text !== undefined);
        const reading = font;
        for (let i = 0; i + reading.bytesPerCode <= string.length; i += reading.bytesPerCode) {
          const code = reading.bytesPerCode === 2 ? ((string[i] as number) << 8) | (string[i + 1] as number) : (string[i] as number);
          if (!reading.isNotdef(code)) continue;
          if (span) {
            // One span is one cluster: its characters are reported once, whatever the glyphs it took.
            if (span.reported) continue;
            span.reported = true;
            const points = visibleCodePoints(span.text as string);
            if (points.length === 0) continue;
            finding.count += points.length;
            finding.named.push(...points);
            continue;
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
        }
      };

      for (let token = lex.value(); token !== undefined; token = lex.value()) {
        if (++tokens % TOKENS_PER_CHECK === 0) budget.check();
        if (!(typeof token === 'object' && token !== null && 'op' in token)) {
          operands.push(token);
          if (operands.length > 64) operands.shift();
          continue;
        }
        const op = token.op;
        switch (op) {
          case 'Tf': {
            const name = operands.at(-2);
            if (isName(name)) {
              if (!readings.has(name.name)) readings.set(name.name, isDict(fonts) ? fontReading(objects.resolve(fonts.dict.get(name.name)), objects) : undefined);
              font = readings.get(name.name);
            }
            break;
          }
          case 'Tj':
          case "'":
          case '"': {
            const string = operands.at(-1);
            if (string instanceof Uint8Array) show(string);
            break;
          }
          case 'TJ': {
            const array = operands.at(-1);
            if (Array.isArray(array)) for (const item of array) if (item instanceof Uint8Array) show(item);
            break;
          }
          case 'BMC':
            marked.push({ reported: false });
            break;
          case 'BDC': {
            const properties = operands.at(-1);
            const actual = isDict(properties) ? properties.dict.get('ActualText') : undefined;
            marked.push(actual instanceof Uint8Array ? { text: utf16(actual), reported: false } : { reported: false });
            break;
          }
          case 'EMC':
            marked.pop();
            break;
          case 'BI': {
            // An inline image: its data is binary, up to `EI` after white space.
            let at = lex.pos;
            while (at < content.length && !(WHITE[content[at - 1] as number] && content[at] === 0x45 && content[at + 1] === 0x49 && (at + 2 >= content.length || WHITE[content[at + 2] as number]))) at++;
            lex.pos = at + 2;
            break;
          }
          case 'Do': {
            const name = operands.at(-1);
            const ref = isName(name) && isDict(xobjects) ? xobjects.dict.get(name.name) : undefined;
            if (!isRef(ref) || depth >= MAX_FORM_DEPTH || open.has(ref.ref)) break;
            let inner = forms.get(ref.ref);
            if (!inner) {
              const form = objects.resolve(ref);
              const subtype = isDict(form) ? objects.resolve(form.dict.get('Subtype')) : undefined;
              if (!isDict(form) || !isName(subtype) || subtype.name !== 'Form') break;
              open.add(ref.ref);
              // A form without resources of its own uses its caller's (PDF 1.1 files do).
              inner = readContent(objects.streamData(form), form.dict.get('Resources') ?? resources, depth + 1, open);
              open.delete(ref.ref);
              forms.set(ref.ref, inner);
            }
            finding.count += inner.count;
            finding.unnamed += inner.unnamed;
            finding.named.push(...inner.named);
            break;
          }
          default:
            break;
        }
        operands.length = 0;
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
      const chunks = parts.map((part) => objects.streamData(part));
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
