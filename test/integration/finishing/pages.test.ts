import { unboundedBudget } from '../../../lib/budget/document-budget.js';
import assert from 'node:assert/strict';
import { inflateSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFString, StandardFonts, type PDFRef } from '@cantoo/pdf-lib';
import { OptionError } from '../../../lib/pdf/errors.js';
import { finishPdf } from '../../../lib/finishing/pipeline/finish-pdf.js';
import { pagesStep } from '../../../lib/finishing/steps/pages/pages.js';
import { pageCountOf, pdfinfo, pdftotextPages, qpdf, qpdfJson } from '../../helpers/pdf-tools.js';

/**
 * Five pages, "Page 1" … "Page 5" (page 2 also says SECRET), in a two-level
 * page tree: page 1 under the root, pages 2–5 under a node that gives them
 * their 300×400 size and a rotation of 90 (inherited, not on the pages).
 */
async function nestedFivePages(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= 5; n += 1) {
    const page = doc.addPage([300, 400]);
    page.drawText(`Page ${n}`, { x: 40, y: 300, size: 24, font });
    if (n === 2) page.drawText('SECRET', { x: 40, y: 200, size: 24, font });
  }
  const { context } = doc;
  const rootRef = doc.catalog.get(PDFName.of('Pages')) as PDFRef;
  const refs = doc.getPages().map((page) => page.ref);
  const mid = context.obj({ Type: 'Pages', Parent: rootRef, Kids: refs.slice(1), Count: 4, MediaBox: [0, 0, 300, 400], Rotate: 90 });
  const midRef = context.register(mid);
  for (const page of doc.getPages().slice(1)) {
    page.node.set(PDFName.of('Parent'), midRef);
    page.node.delete(PDFName.of('MediaBox'));
  }
  const root = doc.catalog.Pages();
  root.set(PDFName.of('Kids'), context.obj([refs[0] as PDFRef, midRef]));
  root.set(PDFName.of('Count'), PDFNumber.of(5));
  return doc.save({ useObjectStreams: false });
}

/** Each page's rotation and size as pdfinfo reads them. */
function pageFacts(pdf: Uint8Array): Array<{ rot: number; size: string }> {
  const count = pageCountOf(pdf);
  const out = pdfinfo(pdf, ['-f', '1', '-l', String(count)]).stdout;
  return Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(4);
    const rot = new RegExp(`^Page ${n} rot:\\s+(\\d+)`, 'm').exec(out)?.[1];
    const size = new RegExp(`^Page ${n} size:\\s+(\\S+ x \\S+)`, 'm').exec(out)?.[1];
    return { rot: Number(rot), size: size ?? '' };
  });
}

const pageTitles = (pdf: Uint8Array) => pdftotextPages(pdf, pageCountOf(pdf)).map((text) => /Page \d/.exec(text)?.[0]);

describe('pagesStep', () => {
  it('keeps the pages pdf.pages names in its order, each with what it inherited, as pdfinfo and pdftotext read them', async () => {
    // Prepare
    const input = await nestedFivePages();
    assert.deepEqual(pageFacts(input).map((page) => page.rot), [0, 90, 90, 90, 90], 'the fixture inherits its rotation');

    // Act
    const out = await finishPdf(input, { pages: pagesStep({ order: '4, 1, 5-' }) }, unboundedBudget());

    // Assess
    assert.deepEqual(pageTitles(out), ['Page 4', 'Page 1', 'Page 5']);
    assert.deepEqual(pageFacts(out), [
      { rot: 90, size: '300 x 400' },
      { rot: 0, size: '300 x 400' },
      { rot: 90, size: '300 x 400' },
    ]);
    const check = qpdf(out, ['--check']);
    assert.equal(check.status, 0, check.stderr);
  });

  it('leaves no trace of a dropped page in the file (its content is gone, not only unlisted)', async () => {
    // Prepare
    const input = await nestedFivePages();
    // pdf-lib writes text as a hex string.
    const secret = `<${Buffer.from('SECRET').toString('hex').toUpperCase()}>`;
    // Every stream in the raw bytes, inflated, reachable or not: qpdf's own rewrite would drop orphans itself.
    const uncompressed = (pdf: Uint8Array) => {
      const raw = Buffer.from(pdf);
      const texts: string[] = [];
      for (let at = raw.indexOf('stream'); at !== -1; at = raw.indexOf('stream', at + 6)) {
        if (raw.subarray(at - 3, at).toString('latin1') === 'end') continue;
        const start = at + (raw[at + 6] === 0x0d ? 8 : 7);
        const end = raw.indexOf('endstream', start);
        if (end === -1) break;
        try {
          texts.push(inflateSync(raw.subarray(start, end)).toString('latin1'));
        } catch {
          texts.push(raw.subarray(start, end).toString('latin1'));
        }
      }
      return texts.join('\n').toUpperCase();
    };
    assert.ok(uncompressed(input).includes(secret), 'the fixture carries the secret on page 2');

    // Act
    const out = await finishPdf(input, { pages: pagesStep({ order: '1, 3-' }) }, unboundedBudget());

    // Assess
    assert.deepEqual(pageTitles(out), ['Page 1', 'Page 3', 'Page 4', 'Page 5']);
    assert.ok(!uncompressed(out).includes(secret), 'page 2 content is no longer in the file');
  });

  it("adds pdf.rotate's angle to each chosen page's own rotation, counting pages in their new order", async () => {
    // Prepare
    const input = await nestedFivePages();

    // Act
    const out = await finishPdf(input, { pages: pagesStep({ order: '3, 1, 2', rotate: { angle: 270, pages: '1-2' } }) }, unboundedBudget());

    // Assess: page 3 inherited 90 (+270 = 0), page 1 had 0 (+270), page 2 keeps its 90.
    assert.deepEqual(pageTitles(out), ['Page 3', 'Page 1', 'Page 2']);
    assert.deepEqual(pageFacts(out).map((page) => page.rot), [0, 270, 90]);
  });

  it('turns every page when rotate names none', async () => {
    const out = await finishPdf(await nestedFivePages(), { pages: pagesStep({ rotate: { angle: 180, pages: '' } }) }, unboundedBudget());
    assert.deepEqual(pageFacts(out).map((page) => page.rot), [180, 270, 270, 270, 270]);
  });

  it('refuses a page past the end with an OptionError naming pages, inside its options (pdf.pages at the edge)', async () => {
    const input = await nestedFivePages();
    await assert.rejects(finishPdf(input, { pages: pagesStep({ order: '2, 6' }) }, unboundedBudget()), (error: unknown) => {
      assert.ok(error instanceof OptionError);
      assert.match(error.fields['pages'] ?? '', /fewer pages/);
      return true;
    });
    await assert.rejects(finishPdf(input, { pages: pagesStep({ order: '6-' }) }, unboundedBudget()), OptionError);
  });

  it('refuses rotate pages past the end, counted after the choice, naming rotate.pages', async () => {
    const input = await nestedFivePages();
    await assert.rejects(finishPdf(input, { pages: pagesStep({ order: '1-2', rotate: { angle: 90, pages: '3' } }) }, unboundedBudget()), (error: unknown) => {
      assert.ok(error instanceof OptionError);
      assert.ok('rotate.pages' in error.fields);
      return true;
    });
  });
});

/**
 * Three tagged pages (Document → H1, Figure on page 1; Link on page 2 with an
 * OBJR to its URI annotation; P on page 3 through an MCR), with a parent tree
 * (pages 0–2, the annotation 3) and an ID tree naming the Figure and the Link.
 */
async function taggedThreePages(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const { context } = doc;
  const pages = [doc.addPage([300, 400]), doc.addPage([300, 400]), doc.addPage([300, 400])];
  const [p1, p2, p3] = pages.map((page) => page.ref) as [PDFRef, PDFRef, PDFRef];
  pages.forEach((page, i) => page.node.set(PDFName.of('StructParents'), PDFNumber.of(i)));
  const annot = context.register(
    context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [0, 0, 10, 10], StructParent: 3, A: { S: 'URI', URI: PDFString.of('https://second-page.example/secret') } }),
  );
  pages[1]?.node.set(PDFName.of('Annots'), context.obj([annot]));
  const rootRef = context.nextRef();
  const documentRef = context.nextRef();
  const element = (type: string, page: PDFRef, kids: unknown[], extra: Record<string, unknown> = {}) =>
    context.register(context.obj({ Type: 'StructElem', S: type, P: documentRef, Pg: page, K: kids, ...extra } as never));
  const h1 = element('H1', p1, [0]);
  const figure = element('Figure', p1, [1], { Alt: PDFString.of('Logo of the first page'), ID: PDFString.of('fig') });
  const link = element('Link', p2, [0, context.obj({ Type: 'OBJR', Obj: annot })], { ID: PDFString.of('link') });
  const paragraph = element('P', p1, [context.obj({ Type: 'MCR', Pg: p3, MCID: 0 })]);
  context.assign(documentRef, context.obj({ Type: 'StructElem', S: 'Document', P: rootRef, K: [h1, figure, link, paragraph] }));
  const parentTree = context.obj({ Nums: [0, context.obj([h1, figure]), 1, context.register(context.obj([link])), 2, context.obj([paragraph]), 3, link] });
  const idTree = context.obj({ Kids: [context.register(context.obj({ Names: [PDFString.of('fig'), figure, PDFString.of('link'), link], Limits: [PDFString.of('fig'), PDFString.of('link')] }))] });
  context.assign(rootRef, context.obj({ Type: 'StructTreeRoot', K: documentRef, ParentTree: parentTree, ParentTreeNextKey: 4, IDTree: idTree }));
  doc.catalog.set(PDFName.of('StructTreeRoot'), rootRef);
  doc.catalog.set(PDFName.of('MarkInfo'), context.obj({ Marked: true }));
  return doc.save({ useObjectStreams: false });
}

/** The structure tree of a PDF as qpdf reads it: each element's type, its page (1-based, or none) and its kids' count; the parent tree's keys; the ID tree's names. */
function structureOf(pdf: Uint8Array): { elements: string[]; parentKeys: number[]; ids: string[]; text: string } {
  const json = qpdfJson(pdf) as { qpdf: [unknown, Record<string, { value: Record<string, unknown> }>] };
  const objects = json.qpdf[1];
  const value = (ref: unknown) => (typeof ref === 'string' ? objects[`obj:${ref}`]?.value : ref) as Record<string, unknown> | unknown[] | undefined;
  const pageRefs = Object.entries(objects).filter(([, o]) => (o.value as { '/Type'?: string })?.['/Type'] === '/Page').map(([key]) => key.slice(4));
  const pageList = (value((value((objects['trailer'] as { value: { '/Root': string } }).value['/Root']) as Record<string, string>)['/Pages']) as { '/Kids': string[] })['/Kids'];
  const elements: string[] = [];
  const seen = new Set<unknown>();
  const walk = (ref: unknown) => {
    if (seen.has(ref)) return;
    seen.add(ref);
    const element = value(ref) as Record<string, unknown> | undefined;
    if (!element || element['/Type'] !== '/StructElem') return;
    const kids = Array.isArray(element['/K']) ? (element['/K'] as unknown[]) : element['/K'] === undefined ? [] : [element['/K']];
    const page = typeof element['/Pg'] === 'string' ? pageList.indexOf(element['/Pg']) + 1 : 0;
    elements.push(`${(element['/S'] as string).slice(1)}@${page || '-'}:${kids.length}`);
    kids.forEach(walk);
  };
  const root = value((value((objects['trailer'] as { value: { '/Root': string } }).value['/Root']) as Record<string, string>)['/StructTreeRoot']) as Record<string, unknown>;
  (Array.isArray(root['/K']) ? (root['/K'] as unknown[]) : [root['/K']]).forEach(walk);
  const nums = (root['/ParentTree'] as { '/Nums': unknown[] })['/Nums'];
  const names = (value(root['/IDTree']) as { '/Names'?: unknown[] })['/Names'] ?? [];
  assert.equal(pageRefs.length, pageList.length);
  return { elements, parentKeys: nums.filter((_, i) => i % 2 === 0) as number[], ids: names.filter((_, i) => i % 2 === 0) as string[], text: JSON.stringify(json) };
}

describe('pagesStep on a tagged PDF', () => {
  it("takes a dropped page out of the structure tree: its elements, their texts, its annotation, its parent and ID tree entries", async () => {
    // Prepare
    const input = await taggedThreePages();
    assert.deepEqual(structureOf(input).elements, ['Document@-:4', 'H1@1:1', 'Figure@1:1', 'Link@2:2', 'P@1:1']);

    // Act: page 2 (the link) dropped; then page 1 (the heading and the figure)
    const withoutLink = structureOf(await finishPdf(input, { pages: pagesStep({ order: '3, 1' }) }, unboundedBudget()));
    const withoutFirst = structureOf(await finishPdf(input, { pages: pagesStep({ order: '2-3' }) }, unboundedBudget()));

    // Assess
    assert.deepEqual(withoutLink.elements, ['Document@-:3', 'H1@2:1', 'Figure@2:1', 'P@2:1']);
    assert.deepEqual(withoutLink.parentKeys, [0, 2]);
    assert.deepEqual(withoutLink.ids, ['u:fig']);
    assert.equal(withoutLink.text.includes('second-page.example'), false, 'the link annotation and its URI are gone');
    assert.equal(withoutLink.text.includes('Logo of the first page'), true);
    // The H1 stays, empty, so the headings still begin with H1 (PDF/UA-1, 7.4.2); the figure and its text go.
    assert.deepEqual(withoutFirst.elements, ['Document@-:3', 'H1@-:0', 'Link@1:2', 'P@-:1']);
    assert.deepEqual(withoutFirst.parentKeys, [1, 2, 3]);
    assert.deepEqual(withoutFirst.ids, ['u:link']);
    assert.equal(withoutFirst.text.includes('Logo of the first page'), false);
  });

  it('finishes on a hostile structure tree: an element listing its own parent, a parent tree whose node lists itself', async () => {
    // Prepare: the Document element becomes a kid of its own H1, and the parent tree's one node lists itself twice.
    const doc = await PDFDocument.load(await taggedThreePages());
    const root = doc.catalog.lookup(PDFName.of('StructTreeRoot')) as PDFDict;
    const documentRef = root.get(PDFName.of('K')) as PDFRef;
    const documentElement = doc.context.lookup(documentRef) as PDFDict;
    const h1 = doc.context.lookup((documentElement.lookup(PDFName.of('K')) as PDFArray).get(0)) as PDFDict;
    h1.set(PDFName.of('K'), doc.context.obj([0, documentRef]));
    const nodeRef = doc.context.nextRef();
    doc.context.assign(nodeRef, doc.context.obj({ Kids: [nodeRef, nodeRef], Nums: [0, doc.context.obj([])] }));
    root.set(PDFName.of('ParentTree'), doc.context.obj({ Kids: [nodeRef] }));
    const input = await doc.save({ useObjectStreams: false });

    // Act
    const out = await finishPdf(input, { pages: pagesStep({ order: '2' }) }, unboundedBudget());

    // Assess: one page, the link's element kept, the figure's text gone
    assert.equal(pageCountOf(out), 1);
    const structure = structureOf(out);
    assert.ok(structure.elements.includes('Link@1:2'), structure.elements.join(', '));
    assert.equal(structure.text.includes('Logo of the first page'), false);
  });

  it('keeps the structure tree whole when every page is kept', async () => {
    const input = await taggedThreePages();
    const out = structureOf(await finishPdf(input, { pages: pagesStep({ order: '1-3' }) }, unboundedBudget()));
    assert.deepEqual(out.elements, ['Document@-:4', 'H1@1:1', 'Figure@1:1', 'Link@2:2', 'P@1:1']);
    assert.deepEqual(out.parentKeys, [0, 1, 2, 3]);
  });
});
