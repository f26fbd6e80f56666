/**
 * The Unicode bidirectional algorithm (UAX #9) for one line of a form value:
 * which characters run right to left and in which order the runs stand on
 * the line. fontkit shapes a run (Arabic joining, Indic reordering) and
 * turns a right-to-left run round, but it takes the direction from the run's
 * script alone, so "محمد 42" would come out with its digits reversed and
 * its words in the wrong order: the runs and their order come from here.
 *
 * A form value is plain text: no explicit embeddings, overrides or isolates
 * (their control characters are kept and drawn as nothing, rules X1–X10 are
 * not needed), one paragraph per line (the field's lines are split before).
 * The bidi classes come from Unicode properties (`\p{…}`) rather than the
 * UCD's table, which is exact for the letters, digits, marks and separators
 * values are written in. A mirrored glyph is asked of the font by its
 * mirrored character (BidiMirroring.txt's brackets and quotes).
 */

type BidiClass = 'L' | 'R' | 'AL' | 'EN' | 'ES' | 'ET' | 'AN' | 'CS' | 'NSM' | 'BN' | 'B' | 'S' | 'WS' | 'ON';

/** Right-to-left letters by default: Hebrew and the other right-to-left blocks (DerivedBidiClass.txt's defaults). */
const RTL_BLOCKS = /[\u0590-\u05ff\u07c0-\u085f\ufb1d-\ufb4f\u{10800}-\u{10fff}\u{1e800}-\u{1ebff}]/u;
/** Arabic letters by default: Arabic, Syriac, Thaana and their supplements and presentation forms. */
const ARABIC_BLOCKS = /[\u0600-\u07bf\u0860-\u08ff\ufb50-\ufdcf\ufdf0-\ufdff\ufe70-\ufeff\u{1ec70}-\u{1efff}]/u;
const ARABIC_NUMBERS = /[\u0600-\u0605\u0660-\u0669\u066b\u066c\u06dd\u0890\u0891\u08e2\u{10e60}-\u{10e7e}]/u;
const EUROPEAN_NUMBERS = /[0-9\u00b2\u00b3\u00b9\u06f0-\u06f9\u2070\u2074-\u2079\u2080-\u2089\u2488-\u249b\uff10-\uff19\u{1d7ce}-\u{1d7ff}\u{1f100}-\u{1f10a}]/u;
const EUROPEAN_SEPARATORS = /[+\-\u207a\u207b\u208a\u208b\u2212\ufb29\ufe62\ufe63\uff0b\uff0d]/u;
const EUROPEAN_TERMINATORS = /[#$%\u00a2-\u00a5\u00b0\u00b1\u058f\u0609\u060a\u066a\u09f2\u09f3\u09fb\u0af1\u0bf9\u0e3f\u17db\u2030-\u2034\u20a0-\u20cf\u212e\u2213\ufe5f\ufe69\ufe6a\uff03-\uff05\uffe0\uffe1\uffe5\uffe6]/u;
const COMMON_SEPARATORS = /[,./:\u00a0\u060c\u202f\u2044\ufe50\ufe52\ufe55\uff0c\uff0e\uff0f\uff1a]/u;
const SEGMENT_SEPARATORS = /[\t\u000b\u001f]/u;
const WHITESPACE = /[\f \u1680\u2000-\u200a\u2028\u205f\u3000]/u;
const MARKS = /[\p{Mn}\p{Me}]/u;
const FORMAT = /[\p{Cf}\p{Cc}]/u;
const LEFT_TO_RIGHT = /[\p{L}\p{Mc}\p{Nd}\p{Nl}\p{No}\p{Co}]/u;

/** The character's bidi class, as DerivedBidiClass.txt gives it for the characters values hold. */
function bidiClass(char: string): BidiClass {
  if (EUROPEAN_NUMBERS.test(char)) return 'EN';
  if (ARABIC_NUMBERS.test(char)) return 'AN';
  if (MARKS.test(char)) return 'NSM';
  if (char === '\u200e') return 'L';
  if (char === '\u200f') return 'R';
  if (char === '\u061c') return 'AL';
  if (SEGMENT_SEPARATORS.test(char)) return 'S';
  if (char === '\n' || char === '\r' || char === '\u001c' || char === '\u001d' || char === '\u001e' || char === '\u0085' || char === '\u2029') return 'B';
  if (FORMAT.test(char)) return 'BN';
  if (WHITESPACE.test(char)) return 'WS';
  if (EUROPEAN_SEPARATORS.test(char)) return 'ES';
  if (EUROPEAN_TERMINATORS.test(char)) return 'ET';
  if (COMMON_SEPARATORS.test(char)) return 'CS';
  if (ARABIC_BLOCKS.test(char)) return /[\p{L}\p{Lm}\u061b\u061f\u06d4]/u.test(char) || !/[\p{P}\p{S}]/u.test(char) ? 'AL' : 'ON';
  if (RTL_BLOCKS.test(char)) return /[\p{P}\p{S}]/u.test(char) && char !== '\u05be' && char !== '\u05c0' && char !== '\u05c3' && char !== '\u05c6' && !/[\u05f3\u05f4]/u.test(char) ? 'ON' : 'R';
  if (LEFT_TO_RIGHT.test(char)) return 'L';
  return 'ON';
}

/** Characters a right-to-left run draws mirrored (BidiMirroring.txt's common pairs). */
const MIRRORS: Record<string, string> = Object.fromEntries(
  ['()', '<>', '[]', '{}', '«»', '‹›', '⁅⁆', '⁽⁾', '₍₎', '≤≥', '⟨⟩', '〈〉', '《》', '「」', '『』', '【】', '〔〕', '〖〗', '〘〙', '〚〛', '（）', '＜＞', '［］', '｛｝', '｢｣'].flatMap(
    (pair) => {
      const [open, close] = [...pair] as [string, string];
      return [
        [open, close],
        [close, open],
      ];
    },
  ),
);

/** Opening brackets and their closing ones (BidiBrackets.txt's common pairs), for rule N0. */
const BRACKETS: Record<string, string> = Object.fromEntries(
  ['()', '[]', '{}', '⁅⁆', '⁽⁾', '₍₎', '⌈⌉', '⌊⌋', '〈〉', '⟨⟩', '《》', '「」', '『』', '【】', '〔〕', '〖〗', '〘〙', '〚〛', '（）', '［］', '｛｝', '｢｣'].map((pair) => [...pair] as [string, string]),
);
const CLOSING = new Set(Object.values(BRACKETS));
/** Most brackets open at once that N0 follows (BD16's stack). */
const BRACKET_DEPTH = 63;

/**
 * N0: a bracket pair takes the direction of what it encloses when that is the
 * paragraph's, else the other direction when the text before it runs that
 * way too; so "(2024)" after Arabic stays with the Arabic, as browsers draw it.
 */
function resolveBrackets(chars: readonly string[], original: readonly BidiClass[], types: BidiClass[], paragraph: number): void {
  const pairs: Array<[number, number]> = [];
  const open: Array<{ at: number; closer: string }> = [];
  for (let i = 0; i < chars.length; i += 1) {
    if (types[i] !== 'ON') continue;
    const char = chars[i] as string;
    const closer = BRACKETS[char];
    if (closer) {
      if (open.length === BRACKET_DEPTH) break;
      open.push({ at: i, closer });
    } else if (CLOSING.has(char)) {
      const match = open.map((entry) => entry.closer).lastIndexOf(char);
      if (match >= 0) {
        pairs.push([(open[match] as { at: number }).at, i]);
        open.length = match;
      }
    }
  }
  pairs.sort((a, b) => a[0] - b[0]);
  const embedding: BidiClass = paragraph === 1 ? 'R' : 'L';
  const strongOf = (type: BidiClass | undefined): BidiClass | undefined => (type === 'L' ? 'L' : type === 'R' || type === 'EN' || type === 'AN' ? 'R' : undefined);
  for (const [start, end] of pairs) {
    const inside = new Set(types.slice(start + 1, end).map(strongOf));
    let resolved: BidiClass | undefined;
    if (inside.has(embedding)) resolved = embedding;
    else if (inside.size > 0 && [...inside].some((type) => type !== undefined)) {
      let before: BidiClass | undefined;
      for (let i = start - 1; i >= 0 && !before; i -= 1) before = strongOf(types[i]);
      resolved = (before ?? embedding) !== embedding ? (before as BidiClass) : embedding;
    }
    if (!resolved) continue;
    for (const at of [start, end]) {
      types[at] = resolved;
      // Marks on a bracket go with it.
      for (let i = at + 1; i < types.length && original[i] === 'NSM'; i += 1) types[i] = resolved;
    }
  }
}

/** A piece of a line in one direction: its characters in logical order, and whether it runs right to left. */
export type BidiRun = { text: string; rtl: boolean };

/** The level of each character of `line` (UAX #9 P2–P3, W1–W7, N0–N2, I1–I2, L1), in logical order, and the paragraph's level. */
export function bidiLevels(line: string): { levels: number[]; paragraph: number; chars: string[] } {
  const chars = [...line];
  const original = chars.map(bidiClass);
  // P2, P3: the first strong letter sets the paragraph's direction, as a field's value shown with dir=auto.
  const first = original.find((type) => type === 'L' || type === 'R' || type === 'AL');
  const paragraph = first === 'R' || first === 'AL' ? 1 : 0;
  const sos: BidiClass = paragraph === 1 ? 'R' : 'L';
  const types = [...original];
  // X9 in effect: format characters take the class of what precedes them, so they never split a run.
  // W1: a mark takes the class of its base (or the start's).
  for (let i = 0; i < types.length; i += 1) {
    if (types[i] === 'NSM' || types[i] === 'BN') types[i] = i === 0 ? (types[i] === 'BN' ? 'BN' : sos) : (types[i - 1] as BidiClass);
  }
  // W2, W3: European digits after Arabic letters are Arabic numbers; Arabic letters are right to left.
  let strong: BidiClass = sos;
  for (let i = 0; i < types.length; i += 1) {
    const type = types[i] as BidiClass;
    if (type === 'L' || type === 'R' || type === 'AL') strong = type;
    else if (type === 'EN' && strong === 'AL') types[i] = 'AN';
  }
  for (let i = 0; i < types.length; i += 1) if (types[i] === 'AL') types[i] = 'R';
  // W4: one separator between two numbers of its kind joins them.
  for (let i = 1; i < types.length - 1; i += 1) {
    const [before, type, after] = [types[i - 1], types[i], types[i + 1]];
    if (type === 'ES' && before === 'EN' && after === 'EN') types[i] = 'EN';
    else if (type === 'CS' && before === after && (before === 'EN' || before === 'AN')) types[i] = before as BidiClass;
  }
  // W5: terminators (currency signs, per cent) next to European digits belong to the number.
  for (let i = 0; i < types.length; i += 1) {
    if (types[i] !== 'ET') continue;
    let end = i;
    while (end < types.length && (types[end] === 'ET' || types[end] === 'BN')) end += 1;
    const touches = (i > 0 && types[i - 1] === 'EN') || (end < types.length && types[end] === 'EN');
    if (touches) for (let j = i; j < end; j += 1) types[j] = 'EN';
    i = end - 1;
  }
  // W6: the remaining separators and terminators are neutral. W7: European digits in a left-to-right context are left to right.
  strong = sos;
  for (let i = 0; i < types.length; i += 1) {
    const type = types[i] as BidiClass;
    if (type === 'ES' || type === 'ET' || type === 'CS') types[i] = 'ON';
    if (type === 'L' || type === 'R') strong = type;
    else if (type === 'EN' && strong === 'L') types[i] = 'L';
  }
  resolveBrackets(chars, original, types, paragraph);
  // N1, N2: a neutral run between two of the same direction takes it (numbers count as right to left), else the paragraph's.
  const direction = (type: BidiClass | undefined): 'L' | 'R' | undefined => (type === 'L' ? 'L' : type === 'R' || type === 'EN' || type === 'AN' ? 'R' : undefined);
  for (let i = 0; i < types.length; i += 1) {
    if (direction(types[i]) !== undefined) continue;
    let end = i;
    while (end < types.length && direction(types[end]) === undefined) end += 1;
    const before = i === 0 ? sos : direction(types[i - 1]);
    const after = end === types.length ? sos : direction(types[end]);
    const resolved: BidiClass = before === after ? (before as BidiClass) : paragraph === 1 ? 'R' : 'L';
    for (let j = i; j < end; j += 1) types[j] = resolved;
    i = end - 1;
  }
  // I1, I2: the levels.
  const levels = types.map((type) => {
    if (paragraph === 0) return type === 'R' ? 1 : type === 'AN' || type === 'EN' ? 2 : 0;
    return type === 'L' || type === 'EN' || type === 'AN' ? 2 : 1;
  });
  // L1: separators, and whitespace at the end of the line or before them, go back to the paragraph's level.
  for (let i = levels.length - 1, trailing = true; i >= 0; i -= 1) {
    const type = original[i];
    if (type === 'S' || type === 'B') {
      levels[i] = paragraph;
      trailing = true;
    } else if (trailing && (type === 'WS' || type === 'BN')) levels[i] = paragraph;
    else trailing = false;
  }
  return { levels, paragraph, chars };
}

/**
 * The line's runs in the order they stand on the line, left to right (L2):
 * each a stretch of one level, its characters in logical order (the shaper
 * turns a right-to-left run round), a right-to-left run's brackets mirrored.
 */
export function visualRuns(line: string): BidiRun[] {
  const { levels, chars } = bidiLevels(line);
  type Piece = { start: number; end: number; level: number };
  const pieces: Piece[] = [];
  for (let i = 0; i < chars.length; i += 1) {
    const last = pieces.at(-1);
    if (last && last.level === levels[i]) last.end = i + 1;
    else pieces.push({ start: i, end: i + 1, level: levels[i] as number });
  }
  // L2: from the highest level down to the lowest odd one, reverse every sequence at that level or higher.
  const highest = Math.max(0, ...levels);
  const lowestOdd = Math.min(...levels.map((level) => (level % 2 === 1 ? level : Infinity)));
  for (let level = highest; level >= lowestOdd && level > 0; level -= 1) {
    for (let i = 0; i < pieces.length; i += 1) {
      if ((pieces[i] as Piece).level < level) continue;
      let end = i;
      while (end < pieces.length && (pieces[end] as Piece).level >= level) end += 1;
      pieces.splice(i, end - i, ...pieces.slice(i, end).reverse());
      i = end - 1;
    }
  }
  return pieces.map(({ start, end, level }) => {
    const rtl = level % 2 === 1;
    const text = chars.slice(start, end).map((char) => (rtl ? (MIRRORS[char] ?? char) : char)).join('');
    return { text, rtl };
  });
}
