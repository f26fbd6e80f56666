/**
 * Texts one of which any string a regular expression matches must contain:
 * a cheap `indexOf` that tells most strings the expression cannot match,
 * before paying for its compilation (autoconsent's ~600 site patterns,
 * compiled afresh in every new renderer process, cost several milliseconds
 * per document; a URL on none of those sites contains none of their names).
 *
 * Conservative by construction: only characters outside any group, class or
 * quantifier count, each top-level alternative gives its longest such run,
 * and an alternative without one (or any syntax not understood) gives
 * `null`: the expression must then always be tried.
 */
export function requiredTexts(pattern: string): string[] | null {
  const texts: string[] = [];
  for (const alternative of topLevelAlternatives(pattern)) {
    const text = longestLiteral(alternative);
    if (text === null) return null;
    texts.push(text);
  }
  return texts;
}

/** Shortest run worth the check (shorter ones appear in most URLs anyway). */
const MIN_LENGTH = 3;
/** Escapes that stand for their own character. */
const LITERAL_ESCAPES = new Set(['.', '/', '-', '?', '*', '+', '(', ')', '[', ']', '{', '}', '|', '^', '$', '\\', ':', '=', '&', '#', '%', '_', '~', '!', ',', '@']);
const QUANTIFIERS = new Set(['?', '*', '+', '{']);

/** Splits at `|` outside groups and classes; an unbalanced pattern gives one part (tried as a whole). */
function topLevelAlternatives(pattern: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let balanced = true;
  walk(pattern, 0, (index, char, depth, inClass) => {
    if (char === '|' && depth === 0 && !inClass) {
      parts.push(pattern.slice(start, index));
      start = index + 1;
    }
    balanced = depth === 0 && !inClass;
    return false;
  });
  parts.push(pattern.slice(start));
  return balanced ? parts : [pattern];
}

/**
 * The longest run of plain characters in one alternative, or null. A group or
 * class ends a run (its content is skipped), as does a character a quantifier
 * follows (it may be absent or repeated).
 */
function longestLiteral(alternative: string): string | null {
  let best = '';
  let run = '';
  const end = () => {
    if (run.length > best.length) best = run;
    run = '';
  };
  for (let i = 0; i < alternative.length; i += 1) {
    const char = alternative[i] as string;
    let literal: string | null = null;
    if (char === '\\') {
      const next = alternative[i + 1];
      // Escapes with an operand (\u0041, \x41, \cJ, \k<name>, \p{L}) or a back-reference: not read here.
      if (next === undefined || /[uxckpP0-9]/.test(next)) return null;
      i += 1;
      if (LITERAL_ESCAPES.has(next)) literal = next;
    } else if (char === '{') {
      // A quantifier's bounds: the character before it was already left out of the run.
      const close = alternative.indexOf('}', i);
      if (close < 0) return null;
      i = close;
    } else if (char === '(' || char === '[') {
      const close = skipGroup(alternative, i);
      if (close < 0) return null;
      i = close;
    } else if (!'.^$|)]}'.includes(char) && !QUANTIFIERS.has(char)) {
      literal = char;
    }
    // A quantifier after this character (or after a group) makes it optional or repeated.
    if (QUANTIFIERS.has(alternative[i + 1] ?? '')) {
      end();
      continue;
    }
    if (literal === null) end();
    else run += literal;
  }
  end();
  return best.length >= MIN_LENGTH ? best : null;
}

/** Index of the `)` or `]` that closes the group or class opening at `open`; -1 when none. */
function skipGroup(text: string, open: number): number {
  return walk(text, open, (_index, char, depth, inClass) => depth === 0 && !inClass && (char === ')' || char === ']'));
}

/**
 * Walks the pattern's structure from `from`: escapes are skipped, and inside a
 * class only its closing `]` is seen. `visit` gets each character with the group
 * depth and class state after it; the walk stops at the first index it returns
 * true for (returned), or gives -1.
 */
function walk(text: string, from: number, visit: (index: number, char: string, depth: number, inClass: boolean) => boolean): number {
  let depth = 0;
  let inClass = false;
  for (let i = from; i < text.length; i += 1) {
    const char = text[i] as string;
    if (char === '\\') {
      i += 1;
      continue;
    }
    if (inClass) {
      if (char !== ']') continue;
      inClass = false;
    } else if (char === '[') {
      inClass = true;
    } else if (char === '(') {
      depth += 1;
    } else if (char === ')') {
      depth -= 1;
    }
    if (visit(i, char, depth, inClass)) return i;
  }
  return -1;
}
