/**
 * The finishing phase of `npm run bench`: what PDF/A, an e-invoice,
 * protection, a watermark and a merge cost the service, measured against the
 * service itself in the same rounds (rotating order, same pauses: the
 * latency phase's rows of different scenarios run minutes apart, and the
 * machine's load moves more than the finishing costs), since bare Puppeteer
 * has no counterpart: a PDF/A-3b, an e-invoice, a protected and a
 * watermarked 1-page PDF against the plain one, a signed one (PAdES B-B with
 * the development software key) too, with one KMS Sign round trip against
 * moto measured apart, a merge of three 1-page parts against three single renders, a 20-page
 * table with a running header and footer (pdf.header, pdf.footer) against the same with Chromium's
 * own (displayHeaderFooter), the TOC report filled (pdf.toc) against one print of it,
 * the compression of a photo-heavy catalogue against Ghostscript /ebook over its plain print, and
 * an existing PDF (1 and 50 pages) stamped through /v1/pdf/process against rendering as many pages.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { invoiceXml } from '../test/conformance/invoices.js';
import { applicationForm } from '../test/helpers/acroform.js';
import { catalogueHtml, WAIT_FOR_PHOTOS } from '../test/helpers/compress-corpus.js';
import { measureKmsRoundTrip } from './kms-round-trip.js';
import { reportHtml, reportToc } from '../test/helpers/report.js';
import { SMALL_HTML, TABLE_HTML } from './pages.js';
import type { BenchService } from './service-client.js';
import { summarize, type Summary } from './stats.js';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

type Variant = { id: string; title: string; calls: Array<{ endpoint: string; body: unknown }> };

const page = { html: b64(SMALL_HTML) };
const table = { html: b64(TABLE_HTML) };
// The same header and footer both ways: Chromium's template fills the same classes as a band.
const BAND_HEADER = '<div style="font:9px sans-serif;width:100%;padding:0 1cm"><span class="title"></span></div>';
const BAND_FOOTER = '<div style="font:9px sans-serif;width:100%;text-align:center">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>';
// The tests' report with a two-page TOC: 30 pages, filled in two or three prints.
const tocReport = { html: b64(reportHtml(reportToc())) };
/** The photo-heavy document of the compression proof: eight 2400×1600 photos drawn by the page, 27 MB printed plain. */
const catalogue = { html: b64(catalogueHtml()), waitForFunction: WAIT_FOR_PHOTOS };

/** An existing PDF of `pages` A4 pages of text (pdf-lib's, not the service's print), base64. */
async function existingPdf(pages: number): Promise<string> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= pages; i++) {
    const sheet = doc.addPage([595, 842]);
    for (let line = 0; line < 40; line++) sheet.drawText(`Page ${i}, line ${line + 1}: an existing statement, stamped on its way out.`, { x: 50, y: 790 - line * 18, size: 10, font });
  }
  return Buffer.from(await doc.save()).toString('base64');
}
const [existing1, existing50] = await Promise.all([existingPdf(1), existingPdf(50)]);
const stamp = { watermark: { text: 'COPY', rotation: 45, opacity: 0.3 } };
/** The tests' application form (six fields of every kind), filled with Latin and Japanese values. */
const application = Buffer.from(await applicationForm()).toString('base64');
const FORM_VALUES = { 'applicant.name': 'Jane Doe', 'applicant.city': '東京都千代田区', agree: true, plan: 'premium', languages: ['en', 'ja'] };
/** 50 pages of the small page's kind: one printed page each. */
const fiftyPages = { html: b64(Array.from({ length: 50 }, (_, i) => `<section style="break-after: page"><h1>Page ${i + 1}</h1><p>${'An existing statement. '.repeat(40)}</p></section>`).join('')) };
const VARIANTS: Variant[] = [
  { id: 'plain', title: '1-page PDF, plain', calls: [{ endpoint: '/v1/pdf', body: { page } }] },
  { id: 'pdfa3b', title: '1-page PDF, PDF/A-3b', calls: [{ endpoint: '/v1/pdf', body: { page, pdf: { pdfa: 'PDF/A-3b' } } }] },
  {
    id: 'einvoice',
    title: '1-page PDF, e-invoice (Factur-X EN 16931)',
    calls: [{ endpoint: '/v1/pdf', body: { page, pdf: { eInvoice: { xml: b64(invoiceXml('EN 16931')) } } } }],
  },
  {
    id: 'protected',
    title: '1-page PDF, protected (AES-256, permissions)',
    calls: [{ endpoint: '/v1/pdf', body: { page, pdf: { protection: { userPassword: 'bench-user', ownerPassword: 'bench-owner', permissions: { copy: false } } } } }],
  },
  {
    id: 'watermarked',
    title: '1-page PDF, text watermark',
    calls: [{ endpoint: '/v1/pdf', body: { page, pdf: { watermark: { text: 'PAID', rotation: 45, opacity: 0.3 } } } }],
  },
  {
    id: 'signed',
    title: '1-page PDF, signed (PAdES B-B, development software key)',
    calls: [{ endpoint: '/v1/pdf', body: { page, pdf: { signature: { level: 'B-B' } } } }],
  },
  {
    id: 'compressed',
    title: 'catalogue of 8 photos, pdf.compress (print included)',
    calls: [{ endpoint: '/v1/pdf', body: { page: catalogue, pdf: { printBackground: true, compress: true } } }],
  },
  {
    id: 'merge3',
    title: 'merge of three 1-page parts (one request)',
    calls: [{ endpoint: '/v1/pdf/merge', body: { parts: [{ page }, { page }, { page }] } }],
  },
  {
    id: 'process1',
    title: 'existing 1-page PDF stamped (POST /v1/pdf/process)',
    calls: [{ endpoint: '/v1/pdf/process', body: { document: existing1, pdf: stamp } }],
  },
  {
    id: 'form',
    title: 'existing 1-page form filled and flattened (process)',
    calls: [{ endpoint: '/v1/pdf/process', body: { document: application, pdf: { form: { fields: FORM_VALUES, flatten: true } } } }],
  },
  {
    id: 'thumbnail',
    title: 'existing 1-page PDF as a 200-px PNG thumbnail (process)',
    calls: [{ endpoint: '/v1/pdf/process', body: { document: existing1, output: 'PNG', image: { width: 200 } } }],
  },
  { id: 'render50', title: '50-page PDF rendered', calls: [{ endpoint: '/v1/pdf', body: { page: fiftyPages } }] },
  {
    id: 'process50',
    title: 'existing 50-page PDF stamped (POST /v1/pdf/process)',
    calls: [{ endpoint: '/v1/pdf/process', body: { document: existing50, pdf: stamp } }],
  },
  {
    id: 'singles3',
    title: 'three single 1-page renders (three requests, summed)',
    calls: [1, 2, 3].map(() => ({ endpoint: '/v1/pdf', body: { page } })),
  },
  {
    id: 'table-bands',
    title: '20-page table PDF, pdf.header + pdf.footer',
    calls: [{ endpoint: '/v1/pdf', body: { page: table, pdf: { header: { html: b64(BAND_HEADER) }, footer: { html: b64(BAND_FOOTER) } } } }],
  },
  {
    id: 'table-builtin',
    title: "20-page table PDF, Chromium's header and footer",
    calls: [{ endpoint: '/v1/pdf', body: { page: table, pdf: { displayHeaderFooter: true, headerHtml: b64(BAND_HEADER), footerHtml: b64(BAND_FOOTER) } } }],
  },
  { id: 'toc', title: 'TOC report, pdf.toc (two or three prints)', calls: [{ endpoint: '/v1/pdf', body: { page: tocReport, pdf: { toc: true } } }] },
  { id: 'toc-once', title: 'TOC report, one print (numbers left empty)', calls: [{ endpoint: '/v1/pdf', body: { page: tocReport } }] },
];

/** Medians per variant, and the same-run ratios the issue asks about. */
export type FinishingResult = {
  variants: Array<{ id: string; title: string; ms: Summary }>;
  ratios: {
    pdfaVsPlain: number;
    eInvoiceVsPlain: number;
    protectedVsPlain: number;
    watermarkedVsPlain: number;
    signedVsPlain: number;
    merge3VsSingles3: number;
    /** A 20-page table's bands against Chromium's own header and footer. */
    bandsVsBuiltin?: number;
    /** The TOC report filled (two or three prints) against one print of it. */
    tocVsOnce?: number;
    /** An existing 1-page PDF stamped through /v1/pdf/process against rendering one page, and the same for 50 pages. */
    process1VsPlain?: number;
    process50VsRender50?: number;
    /** An existing 1-page form filled (CJK too) and flattened through /v1/pdf/process against rendering one page. */
    formVsPlain?: number;
    /** An existing 1-page PDF imaged as a 200-px PNG thumbnail through /v1/pdf/process against rendering one page. */
    thumbnailVsPlain?: number;
  };
  /** One KMS Sign round trip against moto on loopback, measured apart when `signed` runs (not part of any ratio). */
  kmsRoundTrip?: Summary;
  /** When `compressed` runs: the catalogue's sizes plain, compressed and by Ghostscript /ebook, and Ghostscript's time on the plain file, same run. */
  compression?: { plainBytes: number; oursBytes: number; ghostscriptBytes: number; ghostscriptMs: Summary };
};

/**
 * Ghostscript's side of the `compressed` variant, in the same run: the
 * catalogue printed plain by the service (27 MB: fetched from the download
 * its 303 points to), then `gs -dPDFSETTINGS=/ebook` over it `runs` times.
 */
async function measureGhostscript(bench: BenchService, runs: number, oursBytes: number): Promise<NonNullable<FinishingResult['compression']>> {
  let res = await bench.service.request('/v1/pdf', { json: { page: catalogue, pdf: { printBackground: true } } });
  if (res.status === 303) res = await fetch(res.headers.get('location') as string);
  if (!res.ok) throw new Error(`the plain catalogue: the service answered ${res.status}`);
  const dir = mkdtempSync(join(tmpdir(), 'docrender-bench-gs-'));
  try {
    const input = join(dir, 'catalogue.pdf');
    const output = join(dir, 'catalogue.gs.pdf');
    writeFileSync(input, Buffer.from(await res.arrayBuffer()));
    const times: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      const started = performance.now();
      const run = spawnSync('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=pdfwrite', '-dPDFSETTINGS=/ebook', `-sOutputFile=${output}`, input]);
      if (run.status !== 0) throw new Error(`gs failed: ${run.stderr}`);
      times.push(Math.round(performance.now() - started));
    }
    return { plainBytes: readFileSync(input).length, oursBytes, ghostscriptBytes: readFileSync(output).length, ghostscriptMs: summarize(times) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Measures every variant `runs` times after `warmup` rounds, rotating which goes first, each call `thinkMs` after the previous answer. */
export async function measureFinishing(
  bench: BenchService,
  opts: { runs: number; warmup: number; thinkMs: number; variantIds?: string[] | undefined },
): Promise<FinishingResult> {
  // `plain` is what every ratio divides by: it always runs.
  const chosen = VARIANTS.filter((variant) => !opts.variantIds || variant.id === 'plain' || opts.variantIds.includes(variant.id));
  const times = new Map<string, number[]>(chosen.map((variant) => [variant.id, []]));
  let compressedBytes = 0;
  for (let i = 0; i < opts.warmup + opts.runs; i += 1) {
    const order = chosen.map((_, k) => chosen[(k + i) % chosen.length] as Variant);
    for (const variant of order) {
      let total = 0;
      for (const call of variant.calls) {
        const result = await bench.call(call.endpoint, call.body);
        if (result.status !== 200) throw new Error(`${variant.id}: the service answered ${result.status}`);
        total += result.ms;
        if (variant.id === 'compressed') compressedBytes = result.bytes;
        // The think-time client of the latency phase: the instance has ended its post-response phase
        // and is frozen with its next session open, so every variant meets the same ready instance.
        await sleep(opts.thinkMs);
      }
      if (i >= opts.warmup) times.get(variant.id)?.push(total);
    }
    bench.forgetServerSide();
  }
  const variants = chosen.map((variant) => ({ id: variant.id, title: variant.title, ms: summarize(times.get(variant.id) ?? []) }));
  const median = (id: string) => variants.find((variant) => variant.id === id)?.ms.median ?? NaN;
  const ratio = (a: string, b: string) => Math.round((median(a) / median(b)) * 100) / 100;
  return {
    variants,
    ratios: {
      pdfaVsPlain: ratio('pdfa3b', 'plain'),
      eInvoiceVsPlain: ratio('einvoice', 'plain'),
      protectedVsPlain: ratio('protected', 'plain'),
      watermarkedVsPlain: ratio('watermarked', 'plain'),
      signedVsPlain: ratio('signed', 'plain'),
      merge3VsSingles3: ratio('merge3', 'singles3'),
      ...(times.has('table-bands') && times.has('table-builtin') ? { bandsVsBuiltin: ratio('table-bands', 'table-builtin') } : {}),
      ...(times.has('toc') && times.has('toc-once') ? { tocVsOnce: ratio('toc', 'toc-once') } : {}),
      ...(times.has('process1') ? { process1VsPlain: ratio('process1', 'plain') } : {}),
      ...(times.has('form') ? { formVsPlain: ratio('form', 'plain') } : {}),
      ...(times.has('thumbnail') ? { thumbnailVsPlain: ratio('thumbnail', 'plain') } : {}),
      ...(times.has('process50') && times.has('render50') ? { process50VsRender50: ratio('process50', 'render50') } : {}),
    },
    ...(times.has('signed') ? { kmsRoundTrip: await measureKmsRoundTrip(opts.runs) } : {}),
    ...(times.has('compressed') ? { compression: await measureGhostscript(bench, opts.runs, compressedBytes) } : {}),
  };
}

/** The phase's table, as the report prints it. */
export function printFinishing(result: FinishingResult): string {
  const lines = ['', 'Finishing (service against itself, same run; medians in ms):'];
  for (const variant of result.variants) lines.push(`  ${variant.title.padEnd(56)} ${String(variant.ms.median).padStart(8)}  (min ${variant.ms.min}, max ${variant.ms.max}, n ${variant.ms.n})`);
  const { pdfaVsPlain, eInvoiceVsPlain, protectedVsPlain, watermarkedVsPlain, signedVsPlain, merge3VsSingles3, process1VsPlain, process50VsRender50 } = result.ratios;
  lines.push(
    `  PDF/A-3b / plain ${pdfaVsPlain}, e-invoice / plain ${eInvoiceVsPlain}, protected / plain ${protectedVsPlain}, watermarked / plain ${watermarkedVsPlain}, signed / plain ${signedVsPlain} (budget: at most 1.15); merge of 3 / 3 singles ${merge3VsSingles3}`,
    `  existing PDF stamped (process) / rendered, same page count: 1 page ${process1VsPlain}, 50 pages ${process50VsRender50}`,
  );
  if (result.ratios.thumbnailVsPlain !== undefined) lines.push(`  existing 1-page PDF as a 200-px PNG thumbnail (process) / 1-page render ${result.ratios.thumbnailVsPlain}`);
  if (result.ratios.formVsPlain !== undefined) lines.push(`  existing form filled and flattened (process) / 1-page render ${result.ratios.formVsPlain}`);
  if (result.ratios.bandsVsBuiltin !== undefined) lines.push(`  20-page table: pdf.header + pdf.footer / Chromium's header and footer ${result.ratios.bandsVsBuiltin}`);
  if (result.ratios.tocVsOnce !== undefined) lines.push(`  TOC report: pdf.toc / one print ${result.ratios.tocVsOnce}`);
  if (result.kmsRoundTrip) {
    const trip = result.kmsRoundTrip;
    lines.push(`  apart: one KMS Sign round trip (DIGEST, RSA-2048) against moto on loopback ${trip.median} ms (min ${trip.min}, max ${trip.max}, n ${trip.n}); on AWS, network time to KMS in the region`);
  }
  if (result.compression) {
    const { plainBytes, oursBytes, ghostscriptBytes, ghostscriptMs } = result.compression;
    const ours = result.variants.find((variant) => variant.id === 'compressed')?.ms.median ?? NaN;
    lines.push(
      `  catalogue: ${plainBytes} bytes plain, ${oursBytes} with pdf.compress (${ours} ms, the print included), ${ghostscriptBytes} by gs /ebook (${ghostscriptMs.median} ms over the printed file, min ${ghostscriptMs.min}, max ${ghostscriptMs.max}, n ${ghostscriptMs.n}); ours / gs size ${(oursBytes / ghostscriptBytes).toFixed(2)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
