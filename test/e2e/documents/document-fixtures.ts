import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRawStream } from 'pdf-lib';
import { PNG } from 'pngjs';
import type { IncomingMessage, ServerResponse } from 'node:http';

const require = createRequire(import.meta.url);

/** Folder of an installed package (its package.json may not be exported, so go through a file that is). */
const packageDir = (name: string) => {
  const main = require.resolve(name);
  let dir = dirname(main);
  while (!dir.endsWith(join('node_modules', ...name.split('/')))) dir = dirname(dir);
  return dir;
};

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
};

/** Serves a file of an installed package, readable cross-origin (an html body's origin is opaque). */
const asset = (file: string) => {
  const body = readFileSync(file);
  const type = TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream';
  return (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': type, 'access-control-allow-origin': '*', 'cache-control': 'no-store' });
    res.end(body);
  };
};

/** The libraries real documents load, from the npm packages installed as devDependencies. */
export function libraryRoutes(): Record<string, (req: IncomingMessage, res: ServerResponse) => void> {
  const katex = join(packageDir('katex'), 'dist');
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    '/lib/tailwind.js': asset(join(packageDir('@tailwindcss/browser'), 'dist', 'index.global.js')),
    '/lib/chart.js': asset(join(packageDir('chart.js'), 'dist', 'chart.umd.min.js')),
    '/lib/paged.esm.js': asset(join(packageDir('pagedjs'), 'dist', 'paged.esm.js')),
    '/lib/mermaid.js': asset(join(packageDir('mermaid'), 'dist', 'mermaid.min.js')),
    '/lib/jsbarcode.js': asset(join(packageDir('jsbarcode'), 'dist', 'JsBarcode.all.min.js')),
    '/lib/katex/katex.min.js': asset(join(katex, 'katex.min.js')),
    '/lib/katex/katex.min.css': asset(join(katex, 'katex.min.css')),
    '/fonts/roboto-400.woff2': asset(join(packageDir('@fontsource/roboto'), 'files', 'roboto-latin-400-normal.woff2')),
  };
  for (const font of readdirSync(join(katex, 'fonts'))) {
    if (font.endsWith('.woff2')) routes[`/lib/katex/fonts/${font}`] = asset(join(katex, 'fonts', font));
  }
  return routes;
}

/** Invoice lines a script fetches 300 ms after the load event. */
export const INVOICE_LINES = Array.from({ length: 12 }, (_, i) => ({
  item: `Line ${String(i + 1).padStart(2, '0')} consulting block ${String.fromCharCode(65 + i)}`,
  amount: (i + 1) * 125,
}));

/**
 * The real documents, each a function of the test host's base URL: an
 * invoice styled by Tailwind (loaded as a script) in a web font with rows
 * fetched after load, a chart.js report, a Paged.js paginated report, a
 * mermaid diagram, a KaTeX formula and a JsBarcode shipping label.
 */
export const DOCUMENTS = {
  invoice: (base: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Invoice</title>
<script src="${base}/lib/tailwind.js"></script>
<style>@font-face{font-family:'House Sans';src:url(${base}/fonts/roboto-400.woff2) format('woff2');font-weight:400}
body{font-family:'House Sans',serif;margin:0}</style></head>
<body class="p-8">
<header class="bg-blue-600 text-white p-4 h-20"><h1 class="text-2xl">Invoice INV-2041</h1></header>
<table class="w-full mt-4"><tbody id="rows"></tbody></table>
<script>
  window.addEventListener('load', () => setTimeout(async () => {
    const lines = await (await fetch('${base}/invoice-lines.json')).json();
    const body = document.getElementById('rows');
    for (const line of lines) {
      const tr = document.createElement('tr');
      tr.innerHTML = '<td class="py-1"></td><td class="py-1 text-right"></td>';
      tr.children[0].textContent = line.item;
      tr.children[1].textContent = line.amount.toFixed(2) + ' EUR';
      body.append(tr);
    }
    const total = document.createElement('p');
    total.className = 'bg-green-600 text-white p-4 mt-4 h-16';
    total.textContent = 'Total due ' + lines.reduce((s, l) => s + l.amount, 0).toFixed(2) + ' EUR';
    document.body.append(total);
  }, 300));
</script></body></html>`,

  chart: (base: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Report</title>
<style>body{margin:0;font-family:sans-serif} h1{margin:0;height:60px} #box{position:absolute;left:0;top:60px;width:800px;height:400px}</style></head>
<body><h1>Quarterly revenue</h1><div id="box"><canvas id="chart" role="img" aria-label="Bar chart of revenue by quarter: Q1 40, Q2 70, Q3 100, Q4 55"></canvas></div>
<script src="${base}/lib/chart.js"></script>
<script>
  new Chart(document.getElementById('chart'), {
    type: 'bar',
    data: { labels: ['Q1', 'Q2', 'Q3', 'Q4'], datasets: [{ label: 'Revenue', data: [40, 70, 100, 55], backgroundColor: 'rgb(255, 0, 0)' }] },
    options: { responsive: true, maintainAspectRatio: false, plugins: { legend: { display: false } }, scales: { y: { min: 0, max: 100 } } },
  });
</script></body></html>`,

  paged: (base: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Annual report</title>
<style>
  @page { size: letter; margin: 1in;
    @top-center { content: "Annual report"; background: rgb(255, 0, 0); }
    @bottom-center { content: "Page " counter(page) " of " counter(pages); } }
  section { break-after: page; }
</style></head><body>
${[1, 2, 3, 4].map((n) => `<section><h1>Chapter ${n}</h1><p>${'The year in review. '.repeat(40)}</p></section>`).join('\n')}
<script type="module">
  import { Previewer } from '${base}/lib/paged.esm.js';
  window.addEventListener('load', () => new Previewer().preview());
</script></body></html>`,

  diagram: (base: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Process</title></head><body>
<h1>Order process</h1>
<pre class="mermaid">flowchart LR
  A[Order received] --> B[Invoice sent] --> C[Payment booked]</pre>
<script src="${base}/lib/mermaid.js"></script>
<script>mermaid.initialize({ startOnLoad: true, theme: 'default' });</script>
</body></html>`,

  formula: (base: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Formula</title>
<link rel="stylesheet" href="${base}/lib/katex/katex.min.css"></head><body>
<h1>Interest</h1><div id="formula" style="font-size:32px"></div>
<script src="${base}/lib/katex/katex.min.js"></script>
<script>katex.render(String.raw\`\\int_0^1 x^2\\,dx = \\frac{1}{3}\`, document.getElementById('formula'), { displayMode: true });</script>
</body></html>`,

  label: (base: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Label</title></head><body>
<div style="width:4in;border:2px solid #000;padding:12px;font-family:sans-serif">
<h1 style="font-size:1.5em">Ship to: ACME GmbH, Berlin</h1><svg id="barcode"></svg></div>
<script src="${base}/lib/jsbarcode.js"></script>
<script>JsBarcode('#barcode', '4006381333931', { format: 'EAN13', displayValue: true });</script>
</body></html>`,
} as const;

export type DocumentName = keyof typeof DOCUMENTS;

/**
 * An invoice as a Handlebars template using the document helpers, with a
 * chart.js bar chart of its lines (animated by default, like the report).
 */
export const TEMPLATE_INVOICE = (base: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Invoice {{number}}</title>
<style>body{margin:0;font-family:sans-serif} #box{position:absolute;left:0;top:0;width:800px;height:300px} main{position:absolute;top:320px}</style></head>
<body><div id="box"><canvas id="chart" role="img" aria-label="Bar chart of the invoice lines: {{#each lines}}{{item}} {{amount}}{{#unless @last}}, {{/unless}}{{/each}}"></canvas></div><main>
<h1>Invoice {{uppercase number}}</h1><p>Issued {{formatDate issued dateStyle="long" locale="de-DE"}}</p>
<table>{{#each lines}}<tr><td>{{item}}</td><td>{{formatCurrency amount "EUR" locale="de-DE"}}</td>{{#if (gt amount 1000)}}<td>large</td>{{/if}}</tr>{{/each}}</table>
<p>Net {{formatCurrency (sum lines "amount") "EUR" locale="de-DE"}}, VAT {{formatPercent vatRate}}
{{formatCurrency (round (multiply (sum lines "amount") vatRate) 2) "EUR" locale="de-DE"}}</p></main>
<script src="${base}/lib/chart.js"></script>
<script>
  const lines = {{json lines}};
  new Chart(document.getElementById('chart'), {
    type: 'bar',
    data: { labels: lines.map((l) => l.item), datasets: [{ data: lines.map((l) => l.amount), backgroundColor: 'rgb(255, 0, 0)' }] },
    options: { maintainAspectRatio: false, plugins: { legend: { display: false } }, scales: { y: { min: 0, max: Math.max(...lines.map((l) => l.amount)) } } },
  });
</script></body></html>`;

/** A decoded PNG with a pixel test helper. */
export type Pixels = { width: number; height: number; rgba: (x: number, y: number) => [number, number, number, number] };

/** Decodes a PNG. */
export function readPixels(data: Uint8Array): Pixels {
  const png = PNG.sync.read(Buffer.from(data));
  return {
    width: png.width,
    height: png.height,
    rgba: (x, y) => {
      const i = (png.width * y + x) * 4;
      return [png.data[i] ?? 0, png.data[i + 1] ?? 0, png.data[i + 2] ?? 0, png.data[i + 3] ?? 0];
    },
  };
}

/** How many pixels of the image match. */
export function countPixels(image: Pixels, match: (r: number, g: number, b: number) => boolean): number {
  let count = 0;
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const [r, g, b] = image.rgba(x, y);
      if (match(r, g, b)) count++;
    }
  }
  return count;
}

/** Topmost row (as a fraction of the height) holding a matching pixel in any column; 1 when none. */
export function topmostRow(image: Pixels, match: (r: number, g: number, b: number) => boolean): number {
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const [r, g, b] = image.rgba(x, y);
      if (match(r, g, b)) return y / image.height;
    }
  }
  return 1;
}

export const isRed = (r: number, g: number, b: number) => r > 200 && g < 60 && b < 60;

/** Base names of the fonts a PDF embeds (subset prefixes removed). */
export async function pdfFontNames(data: Uint8Array): Promise<string[]> {
  const doc = await PDFDocument.load(data);
  const names = new Set<string>();
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict)) continue;
    if (object.get(PDFName.of('Type')) !== PDFName.of('Font')) continue;
    const base = object.get(PDFName.of('BaseFont'));
    if (base instanceof PDFName) names.add(base.decodeText().replace(/^[A-Z]{6}\+/, ''));
  }
  return [...names];
}

/**
 * The RGB images a PDF embeds (how Chromium prints a canvas), decoded:
 * Skia writes them Flate-compressed, 8 bits per component, unpredicted.
 */
export async function pdfImages(data: Uint8Array): Promise<Pixels[]> {
  const doc = await PDFDocument.load(data);
  const images: Pixels[] = [];
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFRawStream)) continue;
    const dict = object.dict;
    if (dict.get(PDFName.of('Subtype')) !== PDFName.of('Image')) continue;
    if (dict.get(PDFName.of('Filter')) !== PDFName.of('FlateDecode')) continue;
    // RGB, plainly or through an ICC profile (Skia tags canvas pixels with one); a grey plane is a soft mask.
    const space = dict.get(PDFName.of('ColorSpace'));
    if (space !== PDFName.of('DeviceRGB') && !(space instanceof PDFArray)) continue;
    const width = (dict.get(PDFName.of('Width')) as PDFNumber).asNumber();
    const height = (dict.get(PDFName.of('Height')) as PDFNumber).asNumber();
    const raw = inflateSync(object.getContents());
    if (raw.length < width * height * 3) continue;
    images.push({
      width,
      height,
      rgba: (x, y) => {
        const i = (width * y + x) * 3;
        return [raw[i] ?? 0, raw[i + 1] ?? 0, raw[i + 2] ?? 0, 255];
      },
    });
  }
  return images;
}
