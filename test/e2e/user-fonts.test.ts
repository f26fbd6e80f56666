import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BLACK_ITALIC_PS, THIN_ITALIC_PS, thinItalicTtf, blackItalicTtf, toWoff2 } from '../helpers/font-files.js';
import { embeddedFonts } from '../helpers/pdf-tools.js';
import { b64, startService, type RunningService } from '../helpers/service.js';

/**
 * An account's own fonts (issue 46) through the API of `npm start`: a TTF
 * sent as the body and a WOFF2 as JSON, used by family name in a page, a
 * band and a stamp (a render's and an existing PDF's), embedded as pdffonts
 * reads the file; never in another account's render; a broken file a 400.
 * The two faces (Noto Sans Thin Italic and Black Italic) are not in the
 * rendering layer, so a PDF embedding them used the uploads.
 */

type Font = { id: string; family: string; weight: number; style: string; format: string; uploadedAs: string };
type ErrorBody = { code: string; message: string; fields?: Record<string, string> };

const FAMILY = 'Brand Sans';
const thin = `font-family:'${FAMILY}';font-style:italic;font-weight:100`;
const black = `font-family:'${FAMILY}';font-style:italic;font-weight:900`;

describe("an account's own fonts, through the API", () => {
  let service: RunningService;
  let owner: string;
  let other: string;
  const fonts: Font[] = [];

  before(async () => {
    service = await startService();
    owner = (await service.tokens('create')).stdout.trim();
    other = (await service.tokens('create')).stdout.trim();
  });
  after(async () => {
    await service?.stop();
  });

  const pdfOf = async (path: string, json: unknown, token: string) => {
    const res = await service.request(path, { json, token });
    const body = Buffer.from(await res.arrayBuffer());
    assert.equal(res.status, 200, body.toString().slice(0, 400));
    return body;
  };

  it('takes a TTF as the body and a WOFF2 as JSON, each with the family it is given, and lists them', async () => {
    // Act
    const ttf = await service.request(`/v1/fonts?family=${encodeURIComponent(FAMILY)}`, {
      method: 'POST',
      token: owner,
      headers: { 'Content-Type': 'font/ttf' },
      body: new Uint8Array(thinItalicTtf()),
    });
    const woff2 = await service.request('/v1/fonts', { json: { file: (await toWoff2(blackItalicTtf())).toString('base64'), family: FAMILY }, token: owner });
    // Assess
    assert.equal(ttf.status, 201, await ttf.clone().text());
    assert.equal(woff2.status, 201, await woff2.clone().text());
    fonts.push((await ttf.json()) as Font, (await woff2.json()) as Font);
    // Weights as the fonts' OS/2 tables say: Noto Sans Thin declares 250 (as some thin faces do, so that Windows does not embolden it).
    assert.deepEqual(
      fonts.map(({ family, weight, style, format, uploadedAs }) => ({ family, weight, style, format, uploadedAs })),
      [
        { family: FAMILY, weight: 250, style: 'italic', format: 'ttf', uploadedAs: 'ttf' },
        { family: FAMILY, weight: 900, style: 'italic', format: 'ttf', uploadedAs: 'woff2' },
      ],
    );
    const list = (await (await service.request('/v1/fonts', { token: owner })).json()) as { data: Font[] };
    assert.deepEqual(list.data.map((font) => font.id).sort(), fonts.map((font) => font.id).sort());
  });

  it('draws a page and its header band in both faces by family name, with no @font-face, and embeds them', async () => {
    // Act
    const pdf = await pdfOf(
      '/v1/pdf',
      {
        page: { html: b64(`<p style="${thin}">Thin text</p>`) },
        pdf: { header: { html: b64(`<div style="${black};font-size:10px">Black header</div>`) } },
      },
      owner,
    );
    // Assess
    const embedded = embeddedFonts(pdf);
    assert.ok(embedded.includes(THIN_ITALIC_PS), `page in the TTF: ${embedded.join(', ')}`);
    assert.ok(embedded.includes(BLACK_ITALIC_PS), `band in the WOFF2: ${embedded.join(', ')}`);
  });

  it("stamps a render's pages and an existing PDF's with pdf.watermark.fontFamily", async () => {
    // Prepare: a PDF in the layer's fonts only
    const plain = await pdfOf('/v1/pdf', { page: { html: b64('<p>Plain</p>') } }, owner);
    assert.ok(!embeddedFonts(plain).some((name) => name === THIN_ITALIC_PS || name === BLACK_ITALIC_PS));
    const watermark = { text: 'PAID', fontFamily: FAMILY };
    // Act
    const rendered = await pdfOf('/v1/pdf', { page: { html: b64('<p>Plain</p>') }, pdf: { watermark } }, owner);
    const processed = await pdfOf('/v1/pdf/process', { document: plain.toString('base64'), pdf: { watermark } }, owner);
    // Assess: the family's faces are both italic; CSS takes one of them for the stamp's normal text
    for (const [what, pdf] of [['render', rendered], ['process', processed]] as const) {
      const embedded = embeddedFonts(pdf);
      assert.ok(embedded.includes(THIN_ITALIC_PS) || embedded.includes(BLACK_ITALIC_PS), `${what}: ${embedded.join(', ')}`);
    }
  });

  it("never gives another account's render these fonts: its page falls back to the layer's, and the fonts are 404 to it", async () => {
    // Act
    const pdf = await pdfOf(
      '/v1/pdf',
      { page: { html: b64(`<p style="${thin}">Thin</p><p style="${black}">Black</p>`) }, pdf: { watermark: { text: 'PAID', fontFamily: FAMILY } } },
      other,
    );
    const read = await service.request(`/v1/fonts/${fonts[0]?.id}`, { token: other });
    const removed = await service.request(`/v1/fonts/${fonts[0]?.id}`, { method: 'DELETE', token: other });
    const list = (await (await service.request('/v1/fonts', { token: other })).json()) as { data: Font[] };
    // Assess
    const embedded = embeddedFonts(pdf);
    assert.ok(!embedded.includes(THIN_ITALIC_PS) && !embedded.includes(BLACK_ITALIC_PS), embedded.join(', '));
    assert.ok(embedded.length > 0, 'the text is still drawn, in the layer fonts');
    assert.equal(read.status, 404);
    assert.equal(removed.status, 404);
    assert.deepEqual(list.data, []);
  });

  it('refuses a broken font file with a 400 naming the field and the reason, keeping nothing', async () => {
    // Prepare: a TrueType header on a file cut after its table directory
    const broken = Buffer.from(thinItalicTtf().subarray(0, 400));
    // Act
    const asBody = await service.request('/v1/fonts', { method: 'POST', token: owner, headers: { 'Content-Type': 'font/ttf' }, body: new Uint8Array(broken) });
    const asJson = await service.request('/v1/fonts', { json: { file: Buffer.from('not a font at all').toString('base64') }, token: owner });
    // Assess
    assert.equal(asBody.status, 400);
    const bodyError = (await asBody.json()) as ErrorBody;
    assert.equal(bodyError.code, 'font.file');
    assert.match(bodyError.fields?.body ?? '', /\S/);
    assert.equal(asJson.status, 400);
    const jsonError = (await asJson.json()) as ErrorBody;
    assert.equal(jsonError.code, 'font.file');
    assert.match(jsonError.fields?.file ?? '', /not a font file/i);
    const list = (await (await service.request('/v1/fonts', { token: owner })).json()) as { data: Font[] };
    assert.equal(list.data.length, 2);
  });

  it('deletes a font for its owner: 204, then 404', async () => {
    const id = fonts[1]?.id ?? '';
    assert.equal((await service.request(`/v1/fonts/${id}`, { method: 'DELETE', token: owner })).status, 204);
    assert.equal((await service.request(`/v1/fonts/${id}`, { token: owner })).status, 404);
  });
});
