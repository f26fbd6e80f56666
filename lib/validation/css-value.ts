// Enough for colours, gradients and filter functions; without `;`, `{`, `}`,
// `<`, quotes, `\`, `*` or `!` a value cannot end its declaration, open a
// rule, a comment or an HTML tag.
export const CSS_VALUE = /^[A-Za-z0-9#%.,()+\-/ ]*$/;
// `url()` would load an arbitrary resource past the checks on the image URL.
const CSS_URL_FUNCTION = /url\s*\(/i;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * What is wrong with a CSS value a caller gives (an overlay's background
 * colour or gradient, its filter), or undefined: the value is set into a
 * style, so it must not be able to leave its declaration or load anything.
 */
export function cssValueProblem(value: string): string | undefined {
  if (!CSS_VALUE.test(value)) return 'May contain only letters, digits, spaces and # % . , ( ) + - /';
  if (CSS_URL_FUNCTION.test(value)) return 'Must not use url(); give the image URL alone';
  return undefined;
}

/** Whether a value starts with a URL scheme (`https:`…): an overlay background that is an image URL, not CSS. */
export function hasUrlScheme(value: string): boolean {
  return SCHEME.test(value.trim());
}
