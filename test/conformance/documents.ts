/**
 * The documents the conformance suite renders at every PDF/A level and as
 * PDF/UA: the real-documents suite (test/e2e/documents) and pages made for
 * what archiving finds hard: CJK and colour emoji, links and form controls,
 * SVG and transparent PNGs, a 20-page table, a Handlebars invoice.
 */
import { PNG } from 'pngjs';
import { DOCUMENTS, TEMPLATE_INVOICE } from '../e2e/documents/document-fixtures.js';
import { b64 } from '../helpers/service.js';

/** A PNG with an alpha channel: a red disc fading out on transparency. */
function transparentPng(): string {
  const png = new PNG({ width: 64, height: 64 });
  for (let y = 0; y < 64; y++) {
    for (let x = 0; x < 64; x++) {
      const i = (y * 64 + x) * 4;
      const d = Math.hypot(x - 32, y - 32);
      png.data[i] = 220;
      png.data[i + 1] = 30;
      png.data[i + 2] = 30;
      png.data[i + 3] = d < 30 ? Math.round(255 * (1 - d / 30)) : 0;
    }
  }
  return PNG.sync.write(png).toString('base64');
}

const PAGES = {
  cjkEmoji: `<!doctype html><html lang="ja"><head><meta charset="utf-8"><title>多言語のページ</title></head><body>
<h1>請求書 / 发票 / 청구서</h1><p>日本語の文章。中文句子。한국어 문장.</p>
<p lang="en">Colour emoji: 😀 🎉 ✅ 🇩🇪 👩‍💻</p></body></html>`,

  linksForms: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Links and forms</title></head><body>
<h1>Contact</h1><p>Read the <a href="https://example.com/terms">terms</a> or jump to <a href="#form">the form</a>.</p>
<form id="form"><label>Name <input type="text" value="Ada"></label>
<label><input type="checkbox" checked> Subscribe</label>
<label>Plan <select><option>Basic</option><option selected>Pro</option></select></label>
<label>Note <textarea>Hello</textarea></label><button type="button">Send</button></form></body></html>`,

  svgPng: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Graphics</title></head><body style="background:#eef">
<h1>Vector and raster</h1>
<svg width="300" height="120" role="img" aria-label="Two overlapping shapes"><rect x="10" y="10" width="150" height="100" fill="rgba(0,128,0,0.6)"/>
<circle cx="170" cy="60" r="50" fill="blue" fill-opacity="0.4" style="mix-blend-mode:multiply"/>
<text x="20" y="110" font-size="14">SVG text</text></svg>
<img alt="A fading red disc" width="128" height="128" src="data:image/png;base64,${transparentPng()}">
<div style="opacity:0.5;background:linear-gradient(90deg,red,transparent);height:40px">Half transparent</div></body></html>`,

  table20: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Ledger</title>
<style>table{border-collapse:collapse;width:100%} td,th{border:1px solid #888;padding:3px} thead{display:table-header-group}</style></head><body>
<h1>Ledger</h1><table><thead><tr><th>#</th><th>Date</th><th>Account</th><th>Amount</th></tr></thead><tbody>
${Array.from({ length: 700 }, (_, i) => `<tr><td>${i + 1}</td><td>2026-01-${String((i % 28) + 1).padStart(2, '0')}</td><td>Account ${(i * 7) % 100}</td><td>${((i * 37) % 1000).toFixed(2)}</td></tr>`).join('')}
</tbody></table></body></html>`,
};

/** A document of the suite: how to ask the service for it. */
export type SuiteDocument = { name: string; page: Record<string, unknown> };

/** Every document of the suite, for a test host at `base`. */
export function suiteDocuments(base: string): SuiteDocument[] {
  return [
    ...Object.entries(DOCUMENTS).map(([name, make]) => ({ name, page: { url: `${base}/${name}.html` } })),
    ...Object.entries(PAGES).map(([name, markup]) => ({ name, page: { html: b64(markup) } })),
    {
      name: 'handlebarsInvoice',
      page: {
        htmlTemplate: b64(TEMPLATE_INVOICE(base)),
        templateData: { number: 'inv-2041', issued: '2026-03-05T10:00:00Z', vatRate: 0.19, lines: [{ item: 'Consulting', amount: 1250 }, { item: 'Travel', amount: 320 }] },
      },
    },
  ];
}
