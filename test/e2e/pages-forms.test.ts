import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { applicationForm } from '../helpers/acroform.js';
import { outlineOf, pageCountOf, pdfinfo, pdftotext, pdftotextPages, qpdf, qpdfJson } from '../helpers/pdf-tools.js';

/**
 * pdf.pages, pdf.rotate, pdf.form and pdf.flatten through the API of
 * `npm start` with real Chromium (issue 32): what poppler and qpdf read back,
 * and every 400 naming its field.
 */

/** Four printed pages saying "Sheet 1" … "Sheet 4". */
const fourSheets = b64(
  [1, 2, 3, 4].map((n) => `<h1 style="break-after:page">Sheet ${n}</h1>`).join('') + '<style>@page{size:A4;margin:2cm}</style>',
);

/** Each page's rotation as `pdfinfo -f 1 -l N` reads it. */
function rotations(pdf: Uint8Array): number[] {
  const count = pageCountOf(pdf);
  const out = pdfinfo(pdf, ['-f', '1', '-l', String(count)]).stdout;
  return Array.from({ length: count }, (_, i) => Number(new RegExp(`^Page ${String(i + 1).padStart(4)} rot:\\s+(\\d+)`, 'm').exec(out)?.[1]));
}

describe('pages, rotation and forms through the API', () => {
  let service: RunningService;
  let token: string;
  let form: string;

  before(async () => {
    form = Buffer.from(await applicationForm()).toString('base64');
    service = await startService();
    token = (await service.tokens('create', '--limit', '100')).stdout.trim();
  });
  after(async () => {
    await service?.stop();
  });

  const post = (path: string, json: unknown) => service.request(path, { json, token });
  const fieldsOf = async (res: Response) => {
    assert.equal(res.status, 400, await res.clone().text());
    return ((await res.json()) as { fields: Record<string, string> }).fields;
  };

  it('prints the pages pdf.pages names in its order, turns the ones pdf.rotate names, and the footer numbers the final pages', async () => {
    // Act
    const res = await post('/v1/pdf', {
      page: { html: fourSheets },
      pdf: {
        pages: '4, 1-2',
        rotate: { angle: 90, pages: '2' },
        footer: { htmlTemplate: b64('<p style="font:9px sans-serif">Folio {{pageNumber}} of {{totalPages}}</p>') },
      },
    });

    // Assess
    assert.equal(res.status, 200, await res.clone().text());
    const pdf = new Uint8Array(await res.arrayBuffer());
    assert.equal(qpdf(pdf, ['--check']).status, 0);
    const texts = pdftotextPages(pdf, pageCountOf(pdf));
    assert.deepEqual(texts.map((text) => /Sheet \d/.exec(text)?.[0]), ['Sheet 4', 'Sheet 1', 'Sheet 2']);
    assert.deepEqual(texts.map((text) => /Folio \d of \d/.exec(text)?.[0]), ['Folio 1 of 3', 'Folio 2 of 3', 'Folio 3 of 3']);
    assert.deepEqual(rotations(pdf), [0, 90, 0]);
  });

  it('answers 400 naming pdf.pages for a page named twice, a page past the end, and pages with pageRanges', async () => {
    // Act
    const twice = await post('/v1/pdf', { page: { html: fourSheets }, pdf: { pages: '2, 1-3' } });
    const pastEnd = await post('/v1/pdf', { page: { html: fourSheets }, pdf: { pages: '1, 5' } });
    const withRanges = await post('/v1/pdf', { page: { html: fourSheets }, pdf: { pages: '2, 1', pageRanges: '1-2' } });
    const rotatePastEnd = await post('/v1/pdf', { page: { html: fourSheets }, pdf: { pages: '1', rotate: { angle: 180, pages: '2' } } });
    const badAngle = await post('/v1/pdf', { page: { html: fourSheets }, pdf: { rotate: { angle: 45 } } });

    // Assess
    assert.match((await fieldsOf(twice))['pdf.pages'] ?? '', /both take page 2/);
    assert.match((await fieldsOf(pastEnd))['pdf.pages'] ?? '', /fewer pages/);
    assert.deepEqual(Object.keys(await fieldsOf(withRanges)).sort(), ['pdf.pageRanges', 'pdf.pages']);
    assert.deepEqual(Object.keys(await fieldsOf(rotatePastEnd)), ['pdf.rotate.pages']);
    assert.deepEqual(Object.keys(await fieldsOf(badAngle)), ['pdf.rotate.angle']);
  });

  it('fills a merge part\'s form from JSON and flattens it: no field remains, the values (CJK too) are page text', async () => {
    // Act
    const res = await post('/v1/pdf/merge', {
      parts: [{ page: { html: b64('<h1>Cover letter</h1>') } }, { document: form }],
      pdf: { form: { fields: { 'applicant.name': 'Jane Doe', 'applicant.city': '서울특별시', agree: true, plan: 'basic', languages: ['fr', 'ko'] }, flatten: true } },
    });

    // Assess
    assert.equal(res.status, 200, await res.clone().text());
    const pdf = new Uint8Array(await res.arrayBuffer());
    assert.equal(qpdf(pdf, ['--check']).status, 0);
    const { acroform } = qpdfJson(pdf, ['--json-key=acroform']) as { acroform: { hasacroform: boolean; fields: unknown[] } };
    assert.deepEqual([acroform.hasacroform, acroform.fields.length], [false, 0]);
    const pages = pdftotextPages(pdf, 2);
    assert.match(pages[0] ?? '', /Cover letter/);
    for (const value of ['Jane Doe', '서울특별시']) assert.ok(pages[1]?.includes(value), `${value} on page 2: ${pages[1]}`);
  });

  it('fills without flattening: the values stay editable fields qpdf reads', async () => {
    const res = await post('/v1/pdf/merge', { parts: [{ document: form }], pdf: { form: { fields: { 'applicant.city': '北京市', country: 'Korea' } } } });
    assert.equal(res.status, 200, await res.clone().text());
    const { acroform } = qpdfJson(new Uint8Array(await res.arrayBuffer()), ['--json-key=acroform']) as { acroform: { fields: Array<{ fullname: string; value: unknown }> } };
    const value = (name: string) => acroform.fields.find((field) => field.fullname === name)?.value;
    assert.deepEqual([value('applicant.city'), value('country')], ['u:北京市', 'u:Korea']);
  });

  it('answers 400 naming pdf.form.fields.<name> for an unknown field or a value the field cannot take, and pdf.form without a form', async () => {
    // Act
    const unknown = await post('/v1/pdf/merge', { parts: [{ document: form }], pdf: { form: { fields: { surname: 'Doe' } } } });
    const badValues = await post('/v1/pdf/merge', { parts: [{ document: form }], pdf: { form: { fields: { agree: 'yes', country: 'Spain' } } } });
    const htmlForm = await post('/v1/pdf', { page: { html: b64('<form><input name="surname"></form>') }, pdf: { form: { fields: { surname: 'Doe' } } } });
    const notAValue = await post('/v1/pdf/merge', { parts: [{ document: form }], pdf: { form: { fields: { agree: 1 } } } });

    // Assess
    assert.match((await fieldsOf(unknown))['pdf.form.fields.surname'] ?? '', /no field of this name/);
    assert.deepEqual(Object.keys(await fieldsOf(badValues)).sort(), ['pdf.form.fields.agree', 'pdf.form.fields.country']);
    assert.match((await fieldsOf(htmlForm))['pdf.form'] ?? '', /no form fields \(AcroForm\)/);
    assert.deepEqual(Object.keys(await fieldsOf(notAValue)), ['pdf.form.fields.agree']);
  });

  it('pdf.flatten on a merge flattens the part\'s form as it shows, and keeps the printed page\'s link', async () => {
    // Act
    const res = await post('/v1/pdf/merge', {
      parts: [{ page: { html: b64('<a href="https://example.com/terms">Read the terms</a>') } }, { document: form }],
      pdf: { form: { fields: { 'applicant.name': 'Ada Lovelace' } }, flatten: true },
    });

    // Assess
    assert.equal(res.status, 200, await res.clone().text());
    const pdf = new Uint8Array(await res.arrayBuffer());
    assert.equal(qpdf(pdf, ['--check']).status, 0);
    const json = qpdfJson(pdf) as { acroform: { hasacroform: boolean }; pages: Array<{ object: string }>; qpdf: [unknown, Record<string, { value: Record<string, unknown> }>] };
    assert.equal(json.acroform.hasacroform, false);
    const objects = json.qpdf[1];
    const subtypes = json.pages.map((page) => ((objects[`obj:${page.object}`]?.value['/Annots'] ?? []) as string[]).map((ref) => objects[`obj:${ref}`]?.value['/Subtype']));
    assert.deepEqual(subtypes, [['/Link'], []]);
    assert.match(pdftotext(pdf).stdout, /Ada Lovelace/);
  });

  it('keeps pdf.pages and pdf.rotate in a template: its renders choose and turn the pages', async () => {
    // Prepare
    const created = await post('/v1/templates', { name: 'Reordered sheets', variables: { page: { htmlTemplate: fourSheets }, pdf: { pages: '2-3', rotate: { angle: 270 } } } });
    assert.equal(created.status, 201, await created.clone().text());
    const { id } = (await created.json()) as { id: string };

    // Act
    const res = await post(`/v1/template/${id}`, {});

    // Assess
    assert.equal(res.status, 200, await res.clone().text());
    const pdf = new Uint8Array(await res.arrayBuffer());
    assert.deepEqual(pdftotextPages(pdf, pageCountOf(pdf)).map((text) => /Sheet \d/.exec(text)?.[0]), ['Sheet 2', 'Sheet 3']);
    assert.deepEqual(rotations(pdf), [270, 270]);
  });

  it('keeps a tagged render with an outline sound: each kept heading\'s bookmark still leads to its page, the dropped one\'s is gone', async () => {
    // Act
    const res = await post('/v1/pdf', { page: { html: fourSheets }, pdf: { outline: true, tagged: true, pages: '3, 1' } });

    // Assess
    assert.equal(res.status, 200, await res.clone().text());
    const pdf = new Uint8Array(await res.arrayBuffer());
    assert.equal(qpdf(pdf, ['--check']).status, 0, qpdf(pdf, ['--check']).stderr);
    assert.deepEqual(pdftotextPages(pdf, pageCountOf(pdf)).map((text) => /Sheet \d/.exec(text)?.[0]), ['Sheet 3', 'Sheet 1']);
    const targets = outlineOf(pdf).map((item) => [item.title, item.destpageposfrom1]);
    assert.deepEqual(targets.filter(([, page]) => page != null).sort(), [['Sheet 1', 2], ['Sheet 3', 1]]);
  });
});
