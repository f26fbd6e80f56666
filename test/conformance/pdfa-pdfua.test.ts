import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDocumentSite } from '../helpers/documents.js';
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

describe('PDF/A and PDF/UA conformance (veraPDF)', () => {
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

  for (const level of LEVELS) {
    it(`${level}: every document of the suite passes veraPDF with zero failed rules`, () => {
      // Assess
      const failures = [...results].filter(([key, r]) => key.endsWith(` ${level}`) && !r.compliant);
      const detail = failures.map(([key, r]) => `${key}: ${r.error ?? r.failed?.map((f) => `${f.rule} ×${f.count}: ${f.message}`).join('\n  ')}`);
      assert.equal(failures.length, 0, detail.join('\n'));
      assert.ok([...results.keys()].filter((key) => key.endsWith(` ${level}`)).length >= 11, 'the whole suite was validated');
    });
  }
});
