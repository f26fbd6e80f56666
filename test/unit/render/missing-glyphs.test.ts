import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { documentBudget, unboundedBudget } from '../../../lib/budget/document-budget.js';
import { scanBudget, scanMissingGlyphs } from '../../../lib/render/output/missing-glyphs.js';
import { missingGlyphsHeader } from '../../../lib/glyphs/glyph-report.js';

/** A PDF of `objects` (1-based, written in order, with a classic xref), its catalogue object 1 and page tree object 2. */
function pdfOf(objects: Array<string | { dict: string; data: Buffer }>): Uint8Array {
  const chunks: Buffer[] = [Buffer.from('%PDF-1.7\n')];
  let length = chunks[0]!.length;
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(length);
    const body =
      typeof object === 'string'
        ? Buffer.from(`${index + 1} 0 obj\n${object}\nendobj\n`, 'latin1')
        : Buffer.concat([Buffer.from(`${index + 1} 0 obj\n<< ${object.dict} /Length ${object.data.length} >>\nstream\n`, 'latin1'), object.data, Buffer.from('\nendstream\nendobj\n')]);
    chunks.push(body);
    length += body.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  chunks.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`));
  return new Uint8Array(Buffer.concat(chunks));
}

const stream = (content: string, dict = '') => ({ dict, data: Buffer.from(content, 'latin1') });
const flate = (content: string, dict = '') => ({ dict: `${dict} /Filter /FlateDecode`, data: deflateSync(Buffer.from(content, 'latin1')) });
const toUnicode = (pairs: string) => stream(`/CIDInit /ProcSet findresource begin\nbegincmap\n1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n${pairs}\nendcmap\n`);

// Object 3: a Type0 (Identity-H) font; 4: its ToUnicode; 5: Skia's Type3 (codes 1 and 2 name glyphs 0x41 and 0).
const FONTS = [
  '<< /Type /Font /Subtype /Type0 /BaseFont /AAAAAA+OpenSans-Regular /Encoding /Identity-H /ToUnicode 4 0 R >>',
  toUnicode('2 beginbfchar\n<0044> <0061>\n<0045> <0062>\nendbfchar'),
  '<< /Type /Font /Subtype /Type3 /FirstChar 0 /LastChar 2 /Encoding << /Type /Encoding /Differences [0 /g0 /g41 /g0] >> /CharProcs << >> >>',
];
const RESOURCES = '/Resources << /Font << /F4 3 0 R /F5 5 0 R >> >>';

/** One page per content, the fonts above. */
function pagesOf(contents: string[], extra: Array<string | { dict: string; data: Buffer }> = [], resources = RESOURCES) {
  const first = 3 + FONTS.length + extra.length;
  const pages = contents.map((_, i) => `${first + 2 * i} 0 R`).join(' ');
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pages}] /Count ${contents.length} >>`,
    ...FONTS,
    ...extra,
    ...contents.flatMap((content, i) => [`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] ${resources} /Contents ${first + 2 * i + 1} 0 R >>`, flate(content)]),
  ]);
}

describe('scanMissingGlyphs', () => {
  it('names a character drawn as glyph 0 of a Type0 font from its ActualText span, with its page', () => {
    // Prepare
    const pdf = pagesOf(['BT /F4 16 Tf <00440045> Tj ET', 'BT /F4 16 Tf /Span<</ActualText <feffe000> >> BDC <0000> Tj EMC <0044> Tj ET']);

    // Act
    const scan = scanMissingGlyphs(pdf, unboundedBudget());

    // Assess
    assert.deepEqual(scan, { count: 1, codePoints: ['U+E000'], firstPage: 2, unnamed: 0, partial: false });
  });

  it('reports nothing for a page whose every glyph is a real one', () => {
    // Act
    const scan = scanMissingGlyphs(pagesOf(['BT /F4 16 Tf <00440045> Tj /F5 16 Tf <01> Tj ET']), unboundedBudget());

    // Assess
    assert.equal(scan.count, 0);
    assert.equal(scan.firstPage, 0);
  });

  it("counts a Type3 code that names Skia's g0, and not one that names a real glyph", () => {
    // Act
    const scan = scanMissingGlyphs(pagesOf(['BT /F5 16 Tf <01> Tj /Span<</ActualText <feff4e00> >> BDC <02> Tj EMC ET']), unboundedBudget());

    // Assess
    assert.deepEqual([scan.count, scan.codePoints], [1, ['U+4E00']]);
  });

  it('counts glyph 0 the file does not name (Skia keeps the first per font to itself) as unnamed', () => {
    // Act
    const scan = scanMissingGlyphs(pagesOf(['BT /F4 16 Tf [<0044> -20 <0000>] TJ ET']), unboundedBudget());

    // Assess
    assert.deepEqual([scan.count, scan.unnamed, scan.codePoints], [1, 1, []]);
  });

  it('skips an ignorable character drawn as glyph 0 (a zero-width joiner is no blank)', () => {
    // Act
    const scan = scanMissingGlyphs(pagesOf(['BT /F4 16 Tf /Span<</ActualText <feff200d> >> BDC <0000> Tj EMC ET']), unboundedBudget());

    // Assess
    assert.equal(scan.count, 0);
  });

  it('follows a Form XObject drawn by Do, nested, as a stamp or band is laid on a page', () => {
    // Prepare: object 6 is the outer form, 7 the inner one, drawing the missing character.
    const forms = [
      stream('q /Inner Do Q', `/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /XObject << /Inner 7 0 R >> >>`),
      flate('BT /F4 9 Tf /Span<</ActualText <feffe001> >> BDC <0000> Tj EMC ET', `/Type /XObject /Subtype /Form /BBox [0 0 10 10] ${RESOURCES}`),
    ];
    const resources = '/Resources << /Font << /F4 3 0 R >> /XObject << /Stamp 6 0 R >> >>';

    // Act
    const scan = scanMissingGlyphs(pagesOf(['BT /F4 16 Tf <0044> Tj ET', 'q /Stamp Do Q'], forms, resources), unboundedBudget());

    // Assess
    assert.deepEqual([scan.count, scan.codePoints, scan.firstPage], [1, ['U+E001'], 2]);
  });

  it('does not loop on a form that draws itself', () => {
    // Prepare
    const forms = [stream('/Self Do BT /F4 9 Tf /Span<</ActualText <feffe002> >> BDC <0000> Tj EMC ET', `/Subtype /Form /Resources << /Font << /F4 3 0 R >> /XObject << /Self 6 0 R >> >>`)];

    // Act
    const scan = scanMissingGlyphs(pagesOf(['/Self Do'], forms, '/Resources << /XObject << /Self 6 0 R >> >>'), unboundedBudget());

    // Assess
    assert.deepEqual([scan.count, scan.codePoints], [1, ['U+E002']]);
  });

  it('finds glyph 0 wherever it falls in a string: after another code, not across two codes, around white space', () => {
    // Prepare: codes 0041 0000 (one), 0000 0041 (one), 4100 0041 ("0000" across two codes: none), 0041 0000 spaced (one).
    const pages = ['BT /F4 16 Tf <00410000> Tj ET', 'BT /F4 16 Tf <00000041> Tj ET', 'BT /F4 16 Tf <41000041> Tj ET', 'BT /F4 16 Tf <0041 00\n00> Tj ET'];

    // Act
    const counts = pages.map((page) => scanMissingGlyphs(pagesOf([page]), unboundedBudget()).count);

    // Assess
    assert.deepEqual(counts, [1, 1, 0, 1]);
  });

  it('reads every string of a TJ array, each on its own, and the other ways to show text', () => {
    // Prepare: glyph 0 in a TJ's third element, at its second code; a code split between two strings draws nothing;
    // a literal string's escaped zeros; ' and "; a Type3 <0> (an odd digit is followed by 0: code 0, g0).
    const pages = [
      'BT /F4 16 Tf [<0044> -250 (a) 12 <00450000>] TJ ET',
      'BT /F4 16 Tf [<00> 10 <00>] TJ ET',
      'BT /F4 16 Tf (\\000\\000) Tj ET',
      "BT /F4 16 Tf 12 TL <0000> ' 1 2 <0000> \" ET",
      'BT /F5 16 Tf [<01> 5 <0>] TJ ET',
    ];

    // Act
    const counts = pages.map((page) => scanMissingGlyphs(pagesOf([page]), unboundedBudget()).count);

    // Assess
    assert.deepEqual(counts, [1, 0, 1, 2, 1]);
  });

  it('names glyph 0 from a span whose properties hold brackets and nested dictionaries, and skips an inline image', () => {
    // Prepare: an inline image whose data spells a string and an operator; then a span with awkward properties.
    const content = 'BI /W 2 /H 1 /BPC 8 /CS /G ID <0000> Tj (EI EMC EMC\nEI\nBT /F4 16 Tf /Span << /Lang (a>>b) /X << /Y [1] >> /ActualText <feffe003> >> BDC <0000> Tj EMC ET';

    // Act
    const scan = scanMissingGlyphs(pagesOf([content]), unboundedBudget());

    // Assess
    assert.deepEqual([scan.count, scan.codePoints, scan.unnamed], [1, ['U+E003'], 0]);
  });

  it('answers a partial scan, not an error, when the budget cannot inflate the content', () => {
    // Prepare: 200 pages of real text, a budget of 1 KB of inflated bytes.
    const pdf = pagesOf(Array.from({ length: 200 }, () => `BT /F4 16 Tf ${'<00440045> Tj '.repeat(20)} ET`));
    const budget = documentBudget({ at: Date.now() + 60_000, budgetMs: 60_000, totals: { inflatedBytes: 1024 } });

    // Act
    const scan = scanMissingGlyphs(pdf, budget);

    // Assess
    assert.equal(scan.partial, true);
    assert.equal(scan.count, 0);
  });

  it("reads a long print to its last page within the scan's own time (its report is not cut short)", () => {
    // Prepare: 400 pages of a print of tables and charts (some 65 KB of content each, mostly the numbers of
    // paths and text positions, runs of text in two fonts), the last page drawing a glyph 0. One page's stream,
    // compressed once, is every page's but the last. (A scan that made a string of every token took some 4 s
    // of CPU for these 26 MB, so its report stopped short, `partial`; reading in place takes about a tenth.)
    const cell = (i: number) => `${i % 97} ${i % 13}.5 30 12 re f\nBT\n/F4 9 Tf\n1 0 0 -1 ${i % 89} ${i} Tm\n<00140014001C> Tj\n/F5 9 Tf\n4 0 Td <01> Tj\nET\n`;
    const page = Array.from({ length: 700 }, (_, i) => cell(i)).join('');
    const data = deflateSync(Buffer.from(page, 'latin1'));
    const last = deflateSync(Buffer.from(`${page}BT /F4 16 Tf /Span<</ActualText <feffe004> >> BDC <0000> Tj EMC ET`, 'latin1'));
    const pages = 400;
    const pdf = pdfOf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      `<< /Type /Pages /Kids [${Array.from({ length: pages }, (_, i) => `${6 + 2 * i} 0 R`).join(' ')}] /Count ${pages} >>`,
      ...FONTS,
      ...Array.from({ length: pages }, (_, i) => [
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] ${RESOURCES} /Contents ${7 + 2 * i} 0 R >>`,
        { dict: '/Filter /FlateDecode', data: i === pages - 1 ? last : data },
      ]).flat(),
    ]);

    // Act: the budget a render gives the scan (its 3-second cap; the render has a minute left).
    const scan = scanMissingGlyphs(pdf, scanBudget({ remaining: () => 60_000 }));

    // Assess
    assert.deepEqual([scan.partial, scan.count, scan.firstPage, scan.codePoints], [false, 1, pages, ['U+E004']]);
  });

  it('answers a partial scan when the deadline has passed', () => {
    // Act
    const scan = scanMissingGlyphs(pagesOf(['BT /F4 16 Tf <0000> Tj ET']), documentBudget({ at: Date.now() - 1, budgetMs: 1 }));

    // Assess
    assert.equal(scan.partial, true);
  });

  it('reads nothing of an encrypted file (the scan runs before the protect step) and says so', () => {
    // Prepare
    const pdf = Buffer.from(pagesOf(['BT /F4 16 Tf <0000> Tj ET'])).toString('latin1').replace('/Root 1 0 R', '/Root 1 0 R /Encrypt << >>');

    // Act
    const scan = scanMissingGlyphs(new Uint8Array(Buffer.from(pdf, 'latin1')), unboundedBudget());

    // Assess
    assert.deepEqual([scan.partial, scan.count], [true, 0]);
  });
});

describe('missingGlyphsHeader', () => {
  it('says the count, the first page and the code points', () => {
    assert.equal(missingGlyphsHeader({ count: 2, firstPage: 1, codePoints: ['U+E000', 'U+0E01'] }), 'count=2; first-page=1; code-points=U+E000,U+0E01');
  });

  it('stays within its length however many characters are missing', () => {
    const header = missingGlyphsHeader({ count: 500, firstPage: 3, codePoints: Array.from({ length: 100 }, (_, i) => `U+${(0xe000 + i).toString(16).toUpperCase()}`) });
    assert.ok(header.length <= 512, `${header.length}`);
    assert.match(header, /,\.\.\.$/);
  });
});
