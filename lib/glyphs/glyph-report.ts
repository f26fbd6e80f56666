/**
 * The missing-glyph report (issue 46) as the answers carry it, and the
 * refusal of a render that asked for none (`missingGlyphs: "fail"`). A leaf:
 * the edge (lib/errors.ts) maps the error without loading the scanner.
 */

/** Characters drawn with no glyph: how many, which (capped, `U+XXXX`), and the first page that shows one (PDFs). */
export type MissingGlyphReport = {
  count: number;
  codePoints: string[];
  firstPage?: number;
  /** The check stopped before the end of the document (its time or size bound): there may be more. */
  partial?: true;
};

/** Longest `X-Missing-Glyphs` value: the code points are cut (with `...`: a header is ASCII) to keep a header small. */
export const MAX_HEADER_LENGTH = 512;

/** The `X-Missing-Glyphs` value: `count=2; first-page=1; code-points=U+E000,U+0E01` (`; partial` when the check stopped early). */
export function missingGlyphsHeader(report: MissingGlyphReport): string {
  const head = [`count=${report.count}`, ...(report.firstPage ? [`first-page=${report.firstPage}`] : []), ...(report.partial ? ['partial'] : [])].join('; ');
  let points = '';
  for (const point of report.codePoints) {
    const next = points ? `${points},${point}` : point;
    if (head.length + '; code-points='.length + next.length + 2 > MAX_HEADER_LENGTH) {
      points += ',...';
      break;
    }
    points = next;
  }
  return points ? `${head}; code-points=${points}` : head;
}

/** A render with `missingGlyphs: "fail"` drew characters no font has: the edge answers a 422 naming them, nothing charged. */
export class MissingGlyphsError extends Error {
  readonly report: MissingGlyphReport;
  /** The option that asked for the refusal: `pdf.missingGlyphs` or `screenshot.missingGlyphs`. */
  readonly field: string;
  constructor(report: MissingGlyphReport, field: string) {
    const named = report.codePoints.length > 0 ? `: ${report.codePoints.join(', ')}` : '';
    const page = report.firstPage ? ` (first on page ${report.firstPage})` : '';
    super(`${report.count} character${report.count === 1 ? '' : 's'} no font draws${named}${page}`);
    this.name = 'MissingGlyphsError';
    this.report = report;
    this.field = field;
  }
}
