/**
 * The lexer of content streams (ISO 32000 §7.8.2): numbers, names, strings
 * (literal and hexadecimal, decoded), operators, and the rest (array and
 * dictionary brackets) as `other`; comments skipped, an inline image's data
 * skipped with it (one `EI` token). Each token says where it ends, so a
 * rewrite can copy the bytes it leaves alone.
 */

const isWhite = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;
const isDelimiter = (c: number) => c === 0x28 || c === 0x29 || c === 0x3c || c === 0x3e || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d || c === 0x2f || c === 0x25;

/** A token of a content stream, with `end`, the index after its last byte (a rewrite copies what it leaves alone as it was). */
export type Token = (
  | { kind: 'number'; value: number }
  | { kind: 'name'; value: string }
  | { kind: 'operator'; value: string }
  | { kind: 'string'; bytes: Uint8Array }
  | { kind: 'other' }
) & { end: number };

const ESCAPES: Record<number, number> = { 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09, 0x62: 0x08, 0x66: 0x0c };

/** The bytes of a literal string starting at `start` (its opening parenthesis), and the index after it (ISO 32000 §7.3.4.2). */
function literalString(bytes: Uint8Array, start: number): [Uint8Array, number] {
  const out: number[] = [];
  let depth = 0;
  let i = start;
  for (; i < bytes.length; i += 1) {
    const d = bytes[i] as number;
    if (d === 0x5c) {
      const e = bytes[i + 1] as number;
      i += 1;
      if (e >= 0x30 && e <= 0x37) {
        let value = 0;
        let digits = 0;
        while (digits < 3 && (bytes[i] as number) >= 0x30 && (bytes[i] as number) <= 0x37) value = value * 8 + ((bytes[i++] as number) - 0x30), (digits += 1);
        i -= 1;
        out.push(value & 0xff);
      } else if (e === 0x0d) {
        if (bytes[i + 1] === 0x0a) i += 1;
      } else if (e !== 0x0a) out.push(ESCAPES[e] ?? e);
      continue;
    }
    if (d === 0x28 && depth++ === 0) continue;
    if (d === 0x29 && --depth === 0) { i += 1; break; }
    out.push(d);
  }
  return [Uint8Array.from(out), i];
}

/** The bytes of a hexadecimal string starting at `start` (its `<`), and the index after it; an odd last digit counts as followed by 0. */
function hexString(bytes: Uint8Array, start: number): [Uint8Array, number] {
  let i = start + 1;
  let digits = '';
  while (i < bytes.length && bytes[i] !== 0x3e) {
    const c = bytes[i] as number;
    if (!isWhite(c)) digits += String.fromCharCode(c);
    i += 1;
  }
  if (digits.length % 2 === 1) digits += '0';
  return [Uint8Array.from(Buffer.from(digits, 'hex')), i + 1];
}

/** The tokens of a content stream, enough of them to follow `q`, `Q`, `cm`, `Do`, `Tf`, the text-positioning and the text-showing operators (arrays, dictionaries and inline images as `other` or skipped). */
export function* tokens(bytes: Uint8Array): Generator<Token> {
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const c = bytes[i] as number;
    if (isWhite(c)) { i += 1; continue; }
    if (c === 0x25) { while (i < n && bytes[i] !== 0x0a && bytes[i] !== 0x0d) i += 1; continue; }
    if (c === 0x28 || (c === 0x3c && bytes[i + 1] !== 0x3c)) {
      const [string, next] = c === 0x28 ? literalString(bytes, i) : hexString(bytes, i);
      i = next;
      yield { kind: 'string', bytes: string, end: i };
      continue;
    }
    if (c === 0x3c || c === 0x3e) { i += 2; yield { kind: 'other', end: i }; continue; }
    if (c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d) { i += 1; yield { kind: 'other', end: i }; continue; }
    if (c === 0x2f) {
      let j = i + 1;
      while (j < n && !isWhite(bytes[j] as number) && !isDelimiter(bytes[j] as number)) j += 1;
      yield { kind: 'name', value: Buffer.from(bytes.subarray(i + 1, j)).toString('latin1').replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))), end: j };
      i = j;
      continue;
    }
    let j = i;
    while (j < n && !isWhite(bytes[j] as number) && !isDelimiter(bytes[j] as number)) j += 1;
    if (j === i) { i += 1; continue; }
    const word = Buffer.from(bytes.subarray(i, j)).toString('latin1');
    i = j;
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) { yield { kind: 'number', value: Number(word), end: i }; continue; }
    if (word === 'ID') {
      // Inline image data: binary up to whitespace, EI, whitespace.
      i += 1;
      while (i < n && !(bytes[i] === 0x45 && bytes[i + 1] === 0x49 && isWhite(bytes[i - 1] as number) && (i + 2 >= n || isWhite(bytes[i + 2] as number)))) i += 1;
      i = Math.min(i + 2, n);
      yield { kind: 'operator', value: 'EI', end: i };
      continue;
    }
    yield { kind: 'operator', value: word, end: i };
  }
}
