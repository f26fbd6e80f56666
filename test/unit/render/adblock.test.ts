import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { ENGINE_VERSION } from '@ghostery/adblocker';
import { loadAdblockEngine, type AdblockEngine } from '../../../lib/render/page/adblock.js';

const ASSETS = new URL('../../../lib/render/assets/', import.meta.url);
const PAGE = 'https://news.example.com/article/1';

describe('loadAdblockEngine', () => {
  it('loads the shipped engine once per process', async (t) => {
    // Act
    const started = performance.now();
    const first = await loadAdblockEngine();
    const elapsedMs = Math.round(performance.now() - started);
    const second = await loadAdblockEngine();

    // Assess
    assert.equal(second, first);
    t.diagnostic(`engine loaded in ${elapsedMs} ms`);
  });

  it('ships engines this @ghostery/adblocker can read, each asset under 2 MB', () => {
    // Prepare
    const manifest = JSON.parse(readFileSync(new URL('adblock-engine.json', ASSETS), 'utf8')) as {
      engineVersion: number;
      engines: Record<string, { file: string; brotliBytes: number }>;
    };

    // Assess
    assert.equal(manifest.engineVersion, ENGINE_VERSION, 'rebuild with `npx tsx scripts/build-adblock-engine.ts`');
    for (const { file, brotliBytes } of Object.values(manifest.engines)) {
      const size = statSync(new URL(file, ASSETS)).size;
      assert.equal(size, brotliBytes);
      assert.ok(size < 2 * 1024 * 1024, `${file} is ${size} bytes`);
    }
  });
});

describe('AdblockEngine', () => {
  let engine: AdblockEngine;
  before(async () => {
    engine = await loadAdblockEngine();
  });

  describe('shouldBlock', () => {
    it('blocks well-known ad and tracker scripts on a third-party page', () => {
      // Act
      const blocked = [
        'https://www.googletagmanager.com/gtag/js?id=G-ABC123',
        'https://securepubads.g.doubleclick.net/tag/js/gpt.js',
        'https://pagead2.googlesyndication.com/pagead/js/adsbygoogle.js',
        'https://www.google-analytics.com/analytics.js',
        'https://connect.facebook.net/en_US/fbevents.js',
      ].map((url) => [url, engine.shouldBlock({ url, type: 'script', sourceUrl: PAGE })]);

      // Assess
      assert.deepEqual(blocked.filter(([, b]) => !b), []);
    });

    it('blocks tracking pixels and ad frames, not only scripts', () => {
      // Act
      const pixel = engine.shouldBlock({ url: 'https://www.facebook.com/tr?id=1&ev=PageView', type: 'image', sourceUrl: PAGE });
      const frame = engine.shouldBlock({ url: 'https://googleads.g.doubleclick.net/pagead/ads?client=ca-pub-1', type: 'sub_frame', sourceUrl: PAGE });

      // Assess
      assert.equal(pixel, true);
      assert.equal(frame, true);
    });

    it('lets the page own scripts, styles and common CDNs through', () => {
      // Act
      const allowed = [
        ['https://news.example.com/static/app.js', 'script'],
        ['https://news.example.com/static/site.css', 'stylesheet'],
        ['https://news.example.com/api/articles', 'fetch'],
        ['https://cdn.jsdelivr.net/npm/react@18/umd/react.production.min.js', 'script'],
        ['https://fonts.googleapis.com/css2?family=Inter', 'stylesheet'],
      ].map(([url, type]) => [url, engine.shouldBlock({ url: url!, type: type!, sourceUrl: PAGE })]);

      // Assess
      assert.deepEqual(allowed.filter(([, b]) => b), []);
    });

    it('never blocks the top-level document the caller asked for', () => {
      // Act
      const asMainFrame = engine.shouldBlock({ url: 'https://securepubads.g.doubleclick.net/', type: 'main_frame', sourceUrl: '' });
      const asDocument = engine.shouldBlock({ url: 'https://securepubads.g.doubleclick.net/', type: 'document', sourceUrl: '' });

      // Assess
      assert.equal(asMainFrame, false);
      assert.equal(asDocument, false);
    });

    it('ignores URLs that are not http(s)', () => {
      // Act / Assess
      assert.equal(engine.shouldBlock({ url: 'data:image/png;base64,AAAA', type: 'image', sourceUrl: PAGE }), false);
      assert.equal(engine.shouldBlock({ url: 'blob:https://news.example.com/1', type: 'script', sourceUrl: PAGE }), false);
    });
  });

  describe('cosmeticCss', () => {
    it('hides generic ad slots on any site', () => {
      // Act
      const css = engine.cosmeticCss(PAGE);

      // Assess: a generic EasyList-style rule for the 728x90 leaderboard frame
      assert.match(css, /iframe\[width="728"\]\[height="90"\]/);
      assert.match(css, /display:\s*none\s*!important/);
    });

    it('adds the generic class rules the page uses', () => {
      // Act
      const without = engine.cosmeticCss(PAGE);
      const withTokens = engine.cosmeticCss(PAGE, { classes: ['in_article_ad', 'article-body'], ids: [], hrefs: [] });

      // Assess
      assert.doesNotMatch(without, /\.in_article_ad/);
      assert.match(withTokens, /\.in_article_ad/);
      assert.doesNotMatch(withTokens, /\.article-body/);
    });

    it('returns an empty string for a page without a host', () => {
      // Act / Assess
      assert.equal(engine.cosmeticCss('about:blank'), '');
    });
  });
});
