import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDocumentSite } from '../helpers/documents.js';
import { qpdfJson } from '../helpers/pdf-tools.js';
import { startService, type RunningService } from '../helpers/service.js';
import type { TestServer } from '../helpers/test-server.js';
import { suiteDocuments } from './documents.js';
import { veraPdf, type Level, type VeraResult } from './validators/run-validators.js';

/**
 * Every document of the suite, rendered by the running service at every
 * PDF/A level and as PDF/UA-1, is checked by veraPDF with its own profile
 * for that level: zero failed rules, PDF/UA's author rules included (the
 * suite's pages give their canvases alternative text and start their
 * headings at h1, as an accessibility-minded author would). Needs Java 17
 * and Maven (veraPDF comes from Maven Central into .cache/validators).
 */

const LEVELS: Level[] = ['PDF/A-2b', 'PDF/A-2u', 'PDF/A-3b', 'PDF/A-3u', 'PDF/UA-1'];

/** The key of the merged document's result. */
const MERGED = 'merge of three pages (top-level pdfa, metadata, attachment)';

/** The `pdf` options that ask for a level. */
const optionsFor = (level: Level) =>
  level === 'PDF/UA-1' ? { pdfua: true, printBackground: true } : { pdfa: level, printBackground: true };

/** Three tagged pages: an image with alternative text under the H1 on page 1, a link under an H2 on page 2, a table on page 3. */
const THREE_PAGES = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Three pages</title></head><body>
<h1>Report</h1><p>First page text.</p><img alt="Logo of the first page" src="data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="#09c"/></svg>').toString('base64')}">
<h2 style="break-before: page">Second</h2><p>Second page text, with a <a href="https://second-page.example/secret">link</a>.</p>
<h2 style="break-before: page">Third</h2><p>Third page text.</p><table><tr><th>Quarter</th></tr><tr><td>Q1</td></tr></table></body></html>`;

/** pdf.pages that drop a page: the first (its H1 and image), the second (its link), and reorder. */
const DROPPING = ['2', '3, 1', '3'];

describe('PDF/A and PDF/UA conformance (veraPDF)', () => {
  const droppedBytes = new Map<string, Buffer>();
  let service: RunningService;
  let site: TestServer;
  let dir: string;
  const results = new Map<string, VeraResult>();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'docrender-conformance-'));
    site = await startDocumentSite();
    service = await startService();

    // Prepare: render everything first, then validate it all in one JVM (its start-up is the slow part).
    const jobs: Array<[Level, string]> = [];
    for (const document of suiteDocuments(site.url)) {
      for (const level of LEVELS) {
        const res = await service.request('/v1/pdf', { json: { page: document.page, pdf: optionsFor(level) } });
        const body = Buffer.from(await res.arrayBuffer());
        assert.equal(res.status, 200, `${document.name} ${level}: ${body.toString().slice(0, 500)}`);
        const file = join(dir, `${document.name}-${level.replace(/\W/g, '')}.pdf`);
        writeFileSync(file, body);
        jobs.push([level, file]);
        results.set(`${document.name} ${level}`, { file, flavour: level, compliant: false, error: 'not validated' });
      }
    }
    // A merge whose top-level pdf asks for PDF/A-3b with metadata and an attachment: the merged file conforms.
    const parts = suiteDocuments(site.url)
      .filter((document) => ['cjkEmoji', 'linksForms', 'svgPng'].includes(document.name))
      .map((document) => ({ page: document.page, pdf: { printBackground: true } }));
    const merged = await service.request('/v1/pdf/merge', {
      json: {
        parts,
        pdf: {
          pdfa: 'PDF/A-3b',
          metadata: { title: 'Merged for the archive', author: 'DocRender tests' },
          attachments: [{ name: 'figures.csv', content: Buffer.from('quarter,revenue\nQ1,40\n').toString('base64'), mimeType: 'text/csv', relationship: 'Data' }],
        },
      },
    });
    const mergedBody = Buffer.from(await merged.arrayBuffer());
    assert.equal(merged.status, 200, mergedBody.toString().slice(0, 500));
    const mergedFile = join(dir, 'merge-PDFA3b.pdf');
    writeFileSync(mergedFile, mergedBody);
    jobs.push(['PDF/A-3b', mergedFile]);
    results.set(`${MERGED} PDF/A-3b`, { file: mergedFile, flavour: 'PDF/A-3b', compliant: false, error: 'not validated' });

    // PDF/UA with pdf.pages: a three-page document (an image with alternative text on page 1, a link on page 2),
    // some of its pages kept. What is kept passes, and the dropped pages' texts and link are gone from the bytes.
    for (const pages of DROPPING) {
      const res = await service.request('/v1/pdf', { json: { page: { html: Buffer.from(THREE_PAGES).toString('base64') }, pdf: { pdfua: true, pages } } });
      const body = Buffer.from(await res.arrayBuffer());
      assert.equal(res.status, 200, body.toString().slice(0, 500));
      const file = join(dir, `pages-${pages.replace(/\W/g, '_')}.pdf`);
      writeFileSync(file, body);
      droppedBytes.set(pages, body);
      jobs.push(['PDF/UA-1', file]);
      results.set(`three pages, pdf.pages "${pages}" PDF/UA-1`, { file, flavour: 'PDF/UA-1', compliant: false, error: 'not validated' });
    }

    const byFile = new Map((await veraPdf(jobs)).map((result) => [result.file, result]));
    for (const [key, pending] of results) results.set(key, byFile.get(pending.file) ?? pending);
  });

  after(async () => {
    // The table the issue asks for: document × level → pass/fail, with the rules veraPDF checked.
    const rows = [...results].map(([key, r]) => `${key}: ${r.compliant ? 'pass' : 'FAIL'} (${r.rules ?? '?'} rules checked${r.failed?.length ? `; failed ${r.failed.map((f) => f.rule).join(', ')}` : ''})`);
    if (rows.length > 0) console.log(`veraPDF results:\n${rows.join('\n')}`);
    await service?.stop();
    await site?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a merge with pdfa, metadata and an attachment on its top-level pdf passes PDF/A-3b', () => {
    // Assess
    const result = results.get(`${MERGED} PDF/A-3b`);
    assert.ok(result?.compliant, `${result?.error ?? result?.failed?.map((f) => `${f.rule} ×${f.count}: ${f.message}`).join('\n')}`);
  });

  it('PDF/UA-1 with pdf.pages: the kept pages pass, and a dropped page leaves neither its alternative text nor its link', () => {
    for (const pages of DROPPING) {
      const result = results.get(`three pages, pdf.pages "${pages}" PDF/UA-1`);
      assert.ok(result?.compliant, `${pages}: ${result?.error ?? result?.failed?.map((f) => `${f.rule} ×${f.count}: ${f.message}`).join('\n')}`);
    }
    // Every object as qpdf reads it (object streams opened): what a reader of the bytes would find.
    const text = (pages: string) => JSON.stringify(qpdfJson(droppedBytes.get(pages) as Buffer));
    assert.deepEqual(
      DROPPING.map((pages) => [pages, text(pages).includes('Logo of the first page'), text(pages).includes('second-page.example')]),
      [
        ['2', false, true],
        ['3, 1', true, false],
        ['3', false, false],
      ],
    );
  });

  for (const level of LEVELS) {
    it(`${level}: every document of the suite passes veraPDF with zero failed rules`, () => {
      // Assess
      const failures = [...results].filter(([key, r]) => key.endsWith(` ${level}`) && !key.startsWith('three pages') && !r.compliant);
      const detail = failures.map(([key, r]) => `${key}: ${r.error ?? r.failed?.map((f) => `${f.rule} ×${f.count}: ${f.message}`).join('\n  ')}`);
      assert.equal(failures.length, 0, detail.join('\n'));
      assert.ok([...results.keys()].filter((key) => key.endsWith(` ${level}`)).length >= 11, 'the whole suite was validated');
    });
  }
});
