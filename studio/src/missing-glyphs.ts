/**
 * The preview's missing-glyph line: what the render's `X-Missing-Glyphs`
 * header (`count=2; first-page=1; code-points=U+E000,U+E001`) says, as a
 * warning on the preview; nothing when the header is absent.
 */

/** The header's report. `cut`: the service shortened the list (`...`); `partial`: its check stopped early. */
export type MissingGlyphs = { count: number; codePoints: string[]; firstPage?: number; cut: boolean; partial: boolean };

/** Code points the line names; the rest are counted, and all of them are in its tooltip. */
const SHOWN_CODE_POINTS = 8;

/** Reads an `X-Missing-Glyphs` value; null when there is none or it says no count. */
export function parseMissingGlyphs(header: string | null): MissingGlyphs | null {
  if (!header) return null;
  const report: MissingGlyphs = { count: 0, codePoints: [], cut: false, partial: false };
  for (const part of header.split(';').map((item) => item.trim())) {
    const [key, value = ''] = part.split('=', 2) as [string, string?];
    if (key === 'count') report.count = Number(value);
    else if (key === 'first-page') report.firstPage = Number(value);
    else if (key === 'partial') report.partial = true;
    else if (key === 'code-points') {
      const points = value.split(',').filter(Boolean);
      report.cut = points.at(-1) === '...';
      // In code point order, as a person looks them up (the service lists them as it met them).
      report.codePoints = points.filter((point) => /^U\+[0-9A-F]{4,6}$/i.test(point)).sort((a, b) => parseInt(a.slice(2), 16) - parseInt(b.slice(2), 16));
    }
  }
  return Number.isInteger(report.count) && report.count > 0 ? report : null;
}

/** "2 characters no font draws: U+E000, U+E001 (first on page 1)". */
export function describeMissingGlyphs(report: MissingGlyphs): string {
  const shown = report.codePoints.slice(0, SHOWN_CODE_POINTS);
  const more = report.codePoints.length - shown.length;
  // A cut list names fewer than there are: "and over N more".
  const rest = more > 0 ? ` and ${report.cut ? 'over ' : ''}${more} more` : report.cut ? ', …' : '';
  const named = shown.length === 0 ? '' : `: ${shown.join(', ')}${rest}`;
  const page = report.firstPage ? ` (first on page ${report.firstPage})` : '';
  const partial = report.partial ? '; the check stopped early, there may be more' : '';
  return `${report.count} character${report.count === 1 ? '' : 's'} no font draws${named}${page}${partial}`;
}

/** Shows the line for `header` in `line` (a warning), or hides it when the render drew every character. */
export function showMissingGlyphs(line: HTMLElement, header: string | null): void {
  const report = parseMissingGlyphs(header);
  line.hidden = report === null;
  if (!report) {
    line.replaceChildren();
    return;
  }
  const what = document.createElement('strong');
  what.textContent = describeMissingGlyphs(report);
  const hint = document.createElement('small');
  hint.textContent = 'They print blank or as boxes: upload a font that has them (Fonts), or use other characters.';
  line.replaceChildren(what, ' ', hint);
  line.title = report.codePoints.join(', ');
}
