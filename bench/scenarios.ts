import { invoiceXml } from '../test/conformance/invoices.js';
import { LONG_HTML, SMALL_HTML, TABLE_HTML } from './pages.js';

/** What the bare Puppeteer side does for a scenario: load the source, then print or capture. */
export type BareJob = {
  source: { html: string } | { url: string };
  waitUntil: 'load' | 'networkidle0';
  output:
    | { kind: 'pdf'; options: { format: 'letter'; printBackground: boolean; tagged: boolean; outline: boolean } }
    | {
        kind: 'screenshot';
        viewport: { width: number; height: number; deviceScaleFactor: number };
        options: { type: 'png' | 'jpeg'; quality?: number; fullPage: boolean; optimizeForSpeed: boolean };
      };
};

/** One latency scenario: the service request and the bare job that produces the same file. */
export type Scenario = {
  id: string;
  title: string;
  endpoint: '/v1/pdf' | '/v1/screenshot';
  body: Record<string, unknown>;
  bare: BareJob;
  /** Also time bare Puppeteer reusing one page (the floor without isolation), for reference. */
  reusedPageReference?: boolean;
};

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** The PDF the service prints by default (US letter, no backgrounds, untagged), asked of bare Puppeteer explicitly. */
const DEFAULT_PDF = { kind: 'pdf', options: { format: 'letter', printBackground: false, tagged: false, outline: false } } as const;

const VIEWPORT = { width: 1280, height: 800, deviceScaleFactor: 1 };

/** Every latency scenario of the benchmark; `articleUrl` is the locally served page of the page.url scenarios. */
export function latencyScenarios(articleUrl: string): Scenario[] {
  return [
    {
      id: 'pdf-small',
      title: 'small one-page PDF (HTML)',
      endpoint: '/v1/pdf',
      body: { page: { html: b64(SMALL_HTML) } },
      bare: { source: { html: SMALL_HTML }, waitUntil: 'load', output: DEFAULT_PDF },
      reusedPageReference: true,
    },
    {
      id: 'pdf-table-20p',
      title: '20-page table PDF (HTML)',
      endpoint: '/v1/pdf',
      body: { page: { html: b64(TABLE_HTML) } },
      bare: { source: { html: TABLE_HTML }, waitUntil: 'load', output: DEFAULT_PDF },
    },
    // The finishing stage (issue 22): the same two PDFs archived as PDF/A-3b, and as an EN 16931 e-invoice.
    // The bare side prints the same PDF without finishing, so service ÷ bare against pdf-small's shows its cost.
    ...(['pdf-small', 'pdf-table-20p'] as const).flatMap((base) => {
      const html = base === 'pdf-small' ? SMALL_HTML : TABLE_HTML;
      const name = base === 'pdf-small' ? 'small one-page PDF' : '20-page table PDF';
      return [
        {
          id: `${base}-pdfa3b`,
          title: `${name}, pdfa PDF/A-3b`,
          endpoint: '/v1/pdf' as const,
          body: { page: { html: b64(html) }, pdf: { pdfa: 'PDF/A-3b' } },
          bare: { source: { html }, waitUntil: 'load' as const, output: DEFAULT_PDF },
        },
        {
          id: `${base}-einvoice`,
          title: `${name}, EN 16931 e-invoice`,
          endpoint: '/v1/pdf' as const,
          body: { page: { html: b64(html) }, pdf: { eInvoice: { xml: b64(invoiceXml('EN 16931')) } } },
          bare: { source: { html }, waitUntil: 'load' as const, output: DEFAULT_PDF },
        },
      ];
    }),
    {
      id: 'png-1280x800',
      title: 'PNG 1280×800 (HTML)',
      endpoint: '/v1/screenshot',
      body: { page: { html: b64(SMALL_HTML) }, screenshot: { type: 'png', viewport: VIEWPORT } },
      bare: {
        source: { html: SMALL_HTML },
        waitUntil: 'load',
        output: { kind: 'screenshot', viewport: VIEWPORT, options: { type: 'png', fullPage: false, optimizeForSpeed: true } },
      },
      reusedPageReference: true,
    },
    {
      id: 'jpeg-full-page',
      title: 'full-page JPEG of a long page (HTML)',
      endpoint: '/v1/screenshot',
      body: { page: { html: b64(LONG_HTML) }, screenshot: { type: 'jpeg', quality: 80, fullPage: true, viewport: VIEWPORT } },
      bare: {
        source: { html: LONG_HTML },
        waitUntil: 'load',
        output: { kind: 'screenshot', viewport: VIEWPORT, options: { type: 'jpeg', quality: 80, fullPage: true, optimizeForSpeed: true } },
      },
    },
    {
      id: 'url-auto',
      title: 'page.url, waitUntil auto (bare: load)',
      endpoint: '/v1/pdf',
      body: { page: { url: articleUrl, waitUntil: 'auto' } },
      bare: { source: { url: articleUrl }, waitUntil: 'load', output: DEFAULT_PDF },
    },
    {
      id: 'url-load',
      title: 'page.url, waitUntil load',
      endpoint: '/v1/pdf',
      body: { page: { url: articleUrl, waitUntil: 'load' } },
      bare: { source: { url: articleUrl }, waitUntil: 'load', output: DEFAULT_PDF },
    },
    {
      id: 'url-networkidle0',
      title: 'page.url, waitUntil networkidle0',
      endpoint: '/v1/pdf',
      body: { page: { url: articleUrl, waitUntil: 'networkidle0' } },
      bare: { source: { url: articleUrl }, waitUntil: 'networkidle0', output: DEFAULT_PDF },
    },
  ];
}

/** The scenario the throughput and cold-start measurements use: the small PDF. */
export function throughputScenario(): Scenario {
  return latencyScenarios('http://unused.invalid/')[0] as Scenario;
}
