import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applicationForm } from '../helpers/acroform.js';
import { pdftotext, qpdfJson } from '../helpers/pdf-tools.js';
import { startService, type RunningService } from '../helpers/service.js';
import { veraPdf } from './validators/run-validators.js';

/**
 * A form filled from JSON (Latin and CJK values), flattened and made
 * PDF/A-2b in one merge request passes veraPDF's PDF/A-2b profile: the
 * values' fonts are embedded, no field or annotation is left to need an
 * appearance. Needs Java 17 and Maven (as the other conformance tests).
 */
describe('a filled, flattened form as PDF/A-2b (veraPDF)', () => {
  let service: RunningService;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'docrender-form-conformance-'));
    service = await startService();
  });
  after(async () => {
    await service?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes veraPDF, with the values as page text and no field left', async () => {
    // Prepare
    const token = (await service.tokens('create', '--limit', '10')).stdout.trim();
    const form = Buffer.from(await applicationForm({ embeddedLabels: true })).toString('base64');

    // Act
    const res = await service.request('/v1/pdf/merge', {
      token,
      json: {
        parts: [{ document: form }],
        pdf: {
          pdfa: 'PDF/A-2b',
          metadata: { title: 'Application', language: 'en' },
          form: {
            fields: { 'applicant.name': 'Jane Doe', 'applicant.city': '東京都千代田区', agree: true, plan: 'premium', country: 'Japan', languages: ['en', 'ja'] },
            flatten: true,
          },
        },
      },
    });

    // Assess
    assert.equal(res.status, 200, await res.clone().text());
    const pdf = new Uint8Array(await res.arrayBuffer());
    const file = join(dir, 'form.pdf');
    writeFileSync(file, pdf);
    const [result] = await veraPdf([['PDF/A-2b', file]]);
    assert.equal(result?.compliant, true, JSON.stringify(result?.failed ?? result?.error));
    const { acroform } = qpdfJson(pdf, ['--json-key=acroform']) as { acroform: { hasacroform: boolean } };
    assert.equal(acroform.hasacroform, false);
    const text = pdftotext(pdf).stdout;
    for (const value of ['Jane Doe', '東京都千代田区', 'Japan']) assert.ok(text.includes(value), value);
  });
});
