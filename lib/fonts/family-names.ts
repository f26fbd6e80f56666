/**
 * Font family names as pages and options write them (issue 46): an account
 * font's family, a stamp's `fontFamily`. A leaf, loaded by request schemas
 * without the font parser.
 */
import { MAX_FAMILY_CHARACTERS } from './user-fonts/font-limits.js';

/** What makes `family` no family name a page can write in CSS (length, characters), or undefined. */
export function familyProblem(family: string): string | undefined {
  if ([...family].length > MAX_FAMILY_CHARACTERS) return `The family name must be at most ${MAX_FAMILY_CHARACTERS} characters`;
  if (!/^[\p{L}\p{N}][\p{L}\p{N} ._-]*$/u.test(family)) return 'The family name may hold letters, digits, spaces, "-", "_" and "." only';
  return undefined;
}

/** True for CSS's generic families and keywords (`serif`, `monospace`, `inherit`…). */
export function isGenericFamily(family: string): boolean {
  return GENERIC_FAMILIES.has(family.toLowerCase());
}

/** True for CSS's keywords that are no family at all (`inherit`, `initial`…): never a family an option may name. */
export function isCssKeyword(family: string): boolean {
  return CSS_KEYWORDS.has(family.toLowerCase());
}

const CSS_KEYWORDS = new Set(['inherit', 'initial', 'unset', 'revert', 'revert-layer', 'default']);

/** CSS's generic families and keywords: a font by one of these names could never be asked for by its name. */
const GENERIC_FAMILIES = new Set([
  'serif', 'sans-serif', 'monospace', 'cursive', 'fantasy', 'system-ui', 'ui-serif', 'ui-sans-serif', 'ui-monospace', 'ui-rounded',
  'math', 'emoji', 'fangsong', ...CSS_KEYWORDS,
]);

/**
 * A CSS font-family list that asks for `family` first and the layer's
 * sans-serif (with its fallbacks for every script) after it: a generic family
 * as CSS writes it, any other name quoted (familyProblem and isCssKeyword
 * have ruled out quotes, backslashes and keywords).
 */
export function cssFamilyList(family: string | undefined): string {
  if (family === undefined) return 'sans-serif';
  return isGenericFamily(family) ? `${family.toLowerCase()}, sans-serif` : `"${family}", sans-serif`;
}
