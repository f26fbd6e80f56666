import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { accountFonts, fontCacheOf } from '../../../lib/fonts/user-fonts/account-fonts.js';
import { withAccountFonts } from '../../../lib/plan/with-account-fonts.js';
import type { FontStore, UserFont } from '../../../lib/fonts/user-fonts/font-store.js';
import { readFontFile } from '../../../lib/fonts/user-fonts/font-file.js';
import { buildRenderPlan } from '../../../lib/plan/build-plan.js';
import { renderForRequest } from '../../../lib/plan/request-errors.js';
import { createRenderer, type Renderer } from '../../../lib/render/index.js';
import type { ChromiumMode } from '../../../lib/render/types.js';
import { blackItalicTtf, BLACK_ITALIC_PS, thinItalicTtf, THIN_ITALIC_PS, toWoff2 } from '../../helpers/font-files.js';
import { localEgress } from '../../helpers/local-egress.js';
import { embeddedFonts } from '../../helpers/pdf-tools.js';
import { readPdf } from '../../helpers/documents.js';
import { html, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { b64 } from './render-fixtures.js';
import { memoryFontStore } from '../../helpers/memory-font-store.js';

async function keep(store: FontStore, accountId: string, id: string, bytes: Uint8Array, family: string): Promise<void> {
  const file = await readFontFile(bytes, { family });
  const font: UserFont = {
    id, accountId, family: file.family, weight: file.weight, style: file.style, format: file.format, uploaded: file.uploaded,
    sha256: file.sha256, bytes: file.sfnt.length, numGlyphs: file.numGlyphs, createdAt: new Date().toISOString(),
  };
  await store.create(font, file.sfnt);
}

const BRAND_PAGE = '<p style="font-family: \'Brand Sans\'; font-style: italic; font-weight: 100; font-size: 30px">Invoice 42</p>';

for (const mode of ['multi-process', 'single-process'] satisfies ChromiumMode[]) {
  describe(`renderer › an account's own fonts (${mode})`, () => {
    let renderer: Renderer;
    let site: TestServer;
    const fonts = memoryFontStore();

    /** Renders `page` to PDF for `accountId`, its fonts given as the edge gives them. */
    const renderFor = async (accountId: string, page: Record<string, unknown>) => {
      const plan = buildRenderPlan({ output: 'PDF', page: { waitUntil: 'load', ...page } as never, pdf: {} as never });
      withAccountFonts(plan, await accountFonts(fonts.store, accountId));
      return (await renderForRequest(renderer, plan)).body;
    };

    before(async () => {
      await keep(fonts.store, 'acct-a', 'fnt_thin', thinItalicTtf(), 'Brand Sans');
      await keep(fonts.store, 'acct-a', 'fnt_black', await toWoff2(blackItalicTtf()), 'Brand Display');
      site = await startTestServer({ '/brand': html(BRAND_PAGE) });
      renderer = createRenderer({ mode, timeoutMs: 20_000, egress: localEgress });
      await renderer.warm();
    });
    after(async () => {
      await renderer?.close();
      await site?.close();
    });

    it('draws HTML in the account font named by family, with no @font-face, and embeds it', async () => {
      // Act
      const pdf = await renderFor('acct-a', { html: b64(BRAND_PAGE) });

      // Assess
      assert.ok(embeddedFonts(pdf).includes(THIN_ITALIC_PS), embeddedFonts(pdf).join(', '));
    });

    it('draws a site (a URL render) and an uploaded WOFF2 in the account fonts too', async () => {
      // Act
      const fromSite = await renderFor('acct-a', { url: `${site.url}/brand` });
      const woff2 = await renderFor('acct-a', { html: b64('<p style="font-family: \'Brand Display\'; font-style: italic; font-weight: 900">Total</p>') });

      // Assess
      assert.ok(embeddedFonts(fromSite).includes(THIN_ITALIC_PS), embeddedFonts(fromSite).join(', '));
      assert.ok(embeddedFonts(woff2).includes(BLACK_ITALIC_PS), embeddedFonts(woff2).join(', '));
    });

    it("never draws another account's render in these fonts, even right after one that used them", async () => {
      // Prepare: account A's render first, so whatever a warm browser keeps holds its font.
      await renderFor('acct-a', { html: b64(BRAND_PAGE) });

      // Act
      const other = await renderFor('acct-b', { html: b64(BRAND_PAGE) });

      // Assess
      assert.ok(!embeddedFonts(other).includes(THIN_ITALIC_PS), embeddedFonts(other).join(', '));
    });

    it("does not answer another render's font URL: a page asking for it by that URL gets nothing", async () => {
      // Prepare: A's page prints the URL its font came from; B's page then asks for that very URL.
      const spy = `<p id="u" style="font-size:6px"></p><script>document.fonts.ready.then(() => { document.getElementById('u').textContent = performance.getEntriesByType('resource').map((e) => e.name).join(' '); });</script>`;
      const fromA = await readPdf(await renderFor('acct-a', { html: b64(`${BRAND_PAGE}${spy}`), waitUntil: 'networkidle0' }));
      const used = /https:\/\/fonts\.docrender\.invalid\/[0-9a-f]{32}\/fnt_thin/.exec(fromA.text.join(' '))?.[0];
      assert.ok(used, `A's page saw its font's URL: ${fromA.text.join(' ')}`);

      // Act
      const other = await renderFor('acct-b', { html: b64(`<style>@font-face{font-family:X;src:url("${used}")}</style><p style="font-family:X">Invoice 42</p>`) });

      // Assess
      assert.ok(!embeddedFonts(other).includes(THIN_ITALIC_PS), embeddedFonts(other).join(', '));
    });
  });
}

describe('user fonts › the warm environment', () => {
  it('reads each font from the store once, however many renders use it', async () => {
    // Prepare
    const fonts = memoryFontStore();
    await keep(fonts.store, 'acct-a', 'fnt_thin', thinItalicTtf(), 'Brand Sans');
    const renderer = createRenderer({ mode: 'multi-process', timeoutMs: 20_000, egress: localEgress });
    await renderer.warm();
    try {
      const render = async () => {
        const plan = buildRenderPlan({ output: 'PDF', page: { html: b64(BRAND_PAGE), waitUntil: 'load' } as never, pdf: {} as never });
        withAccountFonts(plan, await accountFonts(fonts.store, 'acct-a'));
        return (await renderForRequest(renderer, plan)).body;
      };

      // Act
      const first = await render();
      const readsAfterFirst = fonts.reads();
      const second = await render();

      // Assess
      assert.ok(embeddedFonts(first).includes(THIN_ITALIC_PS) && embeddedFonts(second).includes(THIN_ITALIC_PS));
      assert.equal(readsAfterFirst, 1);
      assert.equal(fonts.reads(), 1, 'the second render read no font from the store');
      assert.equal(fontCacheOf(fonts.store).reads, 1);
    } finally {
      await renderer.close();
    }
  });
});
