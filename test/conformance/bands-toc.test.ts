import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { reportHtml, reportToc } from '../helpers/report.js';
import { veraPdf, type Level, type VeraResult } from './validators/run-validators.js';

/**
 * The report with a running header and footer (bands) and a table of
 * contents, rendered by the running service as PDF/A-2b and as PDF/UA-1,
 * passes veraPDF: the bands are artifacts, not content, and the final print
 * (the TOC's last) is the one finished.
 */
const LEVELS: Level[] = ['PDF/A-2b', 'PDF/UA-1'];

const bands = {
  header: { html: b64('<html lang="en"><body style="font:9px sans-serif"><span class="section"></span> | <span class="title"></span></body></html>'), firstPage: { html: b64('<p></p>') } },
  footer: { htmlTemplate: b64('<p style="font:9px sans-serif;text-align:center">Page {{pageNumber}} of {{totalPages}}</p>') },
  toc: true,
  printBackground: true,
};

describe('PDF/A and PDF/UA of a report with bands and a table of contents (veraPDF)', () => {
  let service: RunningService;
  let dir: string;
  const results = new Map<Level, VeraResult>();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'docrender-bands-'));
    service = await startService();
    const jobs: Array<[Level, string]> = [];
    for (const level of LEVELS) {
      const pdf = level === 'PDF/UA-1' ? { ...bands, pdfua: true } : { ...bands, pdfa: level };
      const res = await service.request('/v1/pdf', { json: { page: { html: b64(reportHtml(reportToc())) }, pdf } });
      const body = Buffer.from(await res.arrayBuffer());
      assert.equal(res.status, 200, `${level}: ${body.toString().slice(0, 500)}`);
      const file = join(dir, `report-${level.replace(/\W/g, '')}.pdf`);
      writeFileSync(file, body);
      jobs.push([level, file]);
    }
    const byFile = new Map((await veraPdf(jobs)).map((result) => [result.file, result]));
    for (const [level, file] of jobs) {
      const result = byFile.get(file);
      if (result) results.set(level, result);
    }
  });

  after(async () => {
    await service?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const level of LEVELS) {
    it(`${level}: passes veraPDF with zero failed rules`, () => {
      // Assess
      const result = results.get(level);
      assert.ok(result?.compliant, `${result?.error ?? result?.failed?.map((f) => `${f.rule} ×${f.count}: ${f.message}`).join('\n')}`);
    });
  }
});
