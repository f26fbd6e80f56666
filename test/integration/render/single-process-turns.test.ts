import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RendererBusyError } from '../../../lib/render/admission.js';
import { warmRenderer } from '../../helpers/local-egress.js';
import { b64, pdfText } from './render-fixtures.js';

describe('renderer › single-process Chromium renders one page at a time', () => {
  it('lets one render in at once whatever the admission says, and the next one after it (every page shares one context)', async () => {
    // Prepare: an admission that would run four at once and queue none
    const renderer = await warmRenderer({ mode: 'single-process', admission: { concurrency: 4, queued: 0 } });
    try {
      // Act
      const [first, second] = await Promise.allSettled([
        pdfText(renderer, { html: b64('<p>first</p>') }),
        pdfText(renderer, { html: b64('<p>second</p>') }),
      ]);
      const after = await pdfText(renderer, { html: b64('<p>after</p>') });

      // Assess
      assert.equal(first.status, 'fulfilled');
      assert.match(first.status === 'fulfilled' ? first.value : '', /first/);
      assert.equal(second.status, 'rejected', 'the second found the one place taken and no queue');
      assert.ok(second.status === 'rejected' && second.reason instanceof RendererBusyError, String(second.status === 'rejected' && second.reason));
      assert.match(after, /after/);
    } finally {
      await renderer.close();
    }
  });
});
