/**
 * The Unicode bidirectional algorithm (UAX #9) for one line of a form value:
 * which characters run right to left and in which order the runs stand on
 * the line. fontkit shapes a run (Arabic joining, Indic reordering) and
 * turns a right-to-left run round, but it takes the direction from the run's
 * script alone, so "محمد 42" would come out with its digits reversed and its
 * words in the wrong order: the runs and their order come from here. The
 * levels and mirrored characters are bidi-js's (MIT), a complete
 * implementation of UAX #9 (brackets, numbers, isolates) and its tables.
 */
import bidiModule, { type Bidi } from 'bidi-js';

/** A piece of a line in one direction: its characters in logical order, and whether it runs right to left. */
export type BidiRun = { text: string; rtl: boolean };

// The package is CommonJS: its module.exports is the factory, which its types describe as an ES default export.
const bidiFactory = bidiModule as unknown as () => Bidi;
// The factory builds its lookup tables once; every line of every render reuses them.
let bidi: Bidi | undefined;

/** The level of each character (code point) of `line`, in logical order; the paragraph direction is its first strong character's (P2–P3). */
export function bidiLevels(line: string): { levels: number[]; chars: string[] } {
  bidi ??= bidiFactory();
  const unitLevels = bidi.getEmbeddingLevels(line, 'auto').levels;
  const chars: string[] = [];
  const levels: number[] = [];
  let unit = 0;
  for (const char of line) {
    chars.push(char);
    levels.push(unitLevels[unit] as number);
    unit += char.length;
  }
  return { levels, chars };
}

/**
 * The line's runs in the order they stand on the line, left to right (L2):
 * each a stretch of one level, its characters in logical order (the shaper
 * turns a right-to-left run round), a right-to-left run's brackets mirrored (L4).
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
  const mirror = bidi as Bidi;
  return pieces.map(({ start, end, level }) => {
    const rtl = level % 2 === 1;
    const text = chars.slice(start, end).map((char) => (rtl ? (mirror.getMirroredCharacter(char) ?? char) : char)).join('');
    return { text, rtl };
  });
}
