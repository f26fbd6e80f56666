import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A one-page invoice: headings, text, a small table, inline CSS, no scripts or external resources. */
export const SMALL_HTML = `<!doctype html><html><head><meta charset="utf-8"><title>Invoice 2024-0042</title>
<style>
  body { font-family: sans-serif; margin: 40px; color: #1f2933; }
  h1 { font-size: 28px; margin-bottom: 4px; } .muted { color: #7b8794; }
  table { width: 100%; border-collapse: collapse; margin-top: 24px; }
  th, td { text-align: left; padding: 8px; border-bottom: 1px solid #e4e7eb; } td.n { text-align: right; }
  .total { font-size: 20px; font-weight: bold; text-align: right; margin-top: 16px; }
</style></head><body>
<h1>Invoice 2024-0042</h1><p class="muted">Issued 3 March 2024 · due 2 April 2024</p>
<p>Billed to: Example Trading Ltd, 1 High Street, Springfield.</p>
<table><thead><tr><th>Item</th><th>Qty</th><th>Price</th><th>Amount</th></tr></thead><tbody>
${Array.from({ length: 8 }, (_, i) => `<tr><td>Consulting, week ${i + 1}</td><td class="n">5</td><td class="n">120.00</td><td class="n">600.00</td></tr>`).join('\n')}
</tbody></table>
<p class="total">Total due: 4,800.00</p>
<p class="muted">Thank you for your business.</p>
</body></html>`;

/** Rows that fill 20 US-letter pages with the table below (checked by the benchmark's output check). */
export const TABLE_ROWS = 875;

/** A report whose table runs over 20 pages. */
export const TABLE_HTML = `<!doctype html><html><head><meta charset="utf-8"><title>Quarterly report</title>
<style>
  body { font-family: sans-serif; margin: 24px; font-size: 12px; }
  table { width: 100%; border-collapse: collapse; } th, td { padding: 4px 6px; border: 1px solid #cbd2d9; }
  th { background: #f0f4f8; } tr:nth-child(even) td { background: #fafbfc; }
</style></head><body><h1>Quarterly report</h1>
<table><thead><tr><th>#</th><th>Customer</th><th>Region</th><th>Product</th><th>Units</th><th>Revenue</th></tr></thead><tbody>
${Array.from({ length: TABLE_ROWS }, (_, i) => `<tr><td>${i + 1}</td><td>Customer ${(i * 7919) % 1000}</td><td>${['North', 'South', 'East', 'West'][i % 4]}</td><td>Product ${String.fromCharCode(65 + (i % 26))}</td><td>${(i * 37) % 500}</td><td>${((i * 7331) % 100000) / 100}</td></tr>`).join('\n')}
</tbody></table></body></html>`;

/** A one-page invoice in Japanese, with Chinese and Korean lines: what a CJK font has to print (the peer phase). */
export const CJK_HTML = `<!doctype html><html lang="ja"><head><meta charset="utf-8"><title>請求書 2024-0042</title>
<style>
  body { margin: 40px; color: #1f2933; } h1 { font-size: 28px; } .muted { color: #7b8794; }
  table { width: 100%; border-collapse: collapse; margin-top: 24px; } th, td { padding: 8px; border-bottom: 1px solid #e4e7eb; text-align: left; }
</style></head><body>
<h1>請求書 2024-0042</h1><p class="muted">発行日 2024年3月3日・お支払期限 2024年4月2日</p>
<p>株式会社サンプル商事 御中。下記の通りご請求申し上げます。</p>
<table><thead><tr><th>品目</th><th>数量</th><th>単価</th><th>金額</th></tr></thead><tbody>
${Array.from({ length: 8 }, (_, i) => `<tr><td>技術相談 第${i + 1}週</td><td>5</td><td>¥12,000</td><td>¥60,000</td></tr>`).join('\n')}
</tbody></table>
<p lang="zh">发票：感谢您的惠顾，请在到期日前付款。</p><p lang="ko">청구서: 기한 내에 결제해 주시기 바랍니다.</p>
<p><strong>合計金額 ¥480,000</strong></p>
</body></html>`;

/** A long article (about 9,000 CSS pixels at 1280 wide): sections of text and coloured blocks. */
export const LONG_HTML = `<!doctype html><html><head><meta charset="utf-8"><title>Long read</title>
<style>
  body { font-family: serif; margin: 0 auto; max-width: 900px; padding: 40px; line-height: 1.6; font-size: 18px; }
  .block { height: 240px; border-radius: 12px; margin: 24px 0; }
</style></head><body>
${Array.from({ length: 18 }, (_, i) => `<h2>Chapter ${i + 1}</h2>
<p>${'The quick brown fox jumps over the lazy dog. '.repeat(12)}</p>
<div class="block" style="background: hsl(${(i * 37) % 360} 60% 70%)"></div>`).join('\n')}
</body></html>`;

/** Text a script of the article page fetches after the load event: proof that a wait caught late content. */
export const LATE_TEXT = 'Late paragraph fetched after the load event';

const ARTICLE_HTML = `<!doctype html><html><head><meta charset="utf-8"><title>Article</title>
<link rel="stylesheet" href="/static/site.css"><script src="/static/app.js" defer></script></head><body>
<header><img src="/static/logo.svg" width="120" height="40" alt="logo"></header>
<main><h1>An article that goes quiet</h1>${'<p>Body text of the article, with enough words to fill a line or two on the page.</p>'.repeat(10)}
<div id="late"></div></main></body></html>`;

const APP_JS = `window.addEventListener('load', function () {
  fetch('/api/late').then(function (r) { return r.text(); }).then(function (text) {
    var p = document.createElement('p'); p.textContent = text; document.getElementById('late').appendChild(p);
  });
});`;

const SITE_CSS = 'body{font-family:sans-serif;margin:40px;color:#222} h1{color:#0b7285} header{border-bottom:1px solid #ddd;margin-bottom:16px}';
const LOGO_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><rect width="120" height="40" rx="6" fill="#0b7285"/></svg>';

/** How long the late request of the article page takes to answer. */
export const LATE_RESPONSE_MS = 100;

export type PageServer = { url: string; articleUrl: string; close(): Promise<void> };

/**
 * Serves the page for the `page.url` scenarios on 127.0.0.1: an article with
 * a stylesheet, an image and a script that fetches one more paragraph right
 * after the load event, then goes quiet.
 */
export async function startPageServer(): Promise<PageServer> {
  const routes: Record<string, { type: string; body: string; delayMs?: number }> = {
    '/article': { type: 'text/html; charset=utf-8', body: ARTICLE_HTML },
    '/static/site.css': { type: 'text/css', body: SITE_CSS },
    '/static/app.js': { type: 'text/javascript', body: APP_JS },
    '/static/logo.svg': { type: 'image/svg+xml', body: LOGO_SVG },
    '/api/late': { type: 'text/plain; charset=utf-8', body: LATE_TEXT, delayMs: LATE_RESPONSE_MS },
  };
  const server: Server = createServer((req, res) => {
    const route = routes[(req.url ?? '/').split('?')[0] ?? '/'];
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    const send = () => res.writeHead(200, { 'content-type': route.type, 'cache-control': 'no-store' }).end(route.body);
    if (route.delayMs) setTimeout(send, route.delayMs);
    else send();
  });
  server.keepAliveTimeout = 1000;
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    articleUrl: `${url}/article`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
