/**
 * The peer phase of `npm run bench` (`--peer gotenberg=http://127.0.0.1:PORT`):
 * the same documents rendered by the service and by a Gotenberg the user
 * runs, in alternating rounds (service first in one round, the peer first in
 * the next, so machine drift hits both alike): a one-page invoice, the
 * multi-page report of the latency phase (its "20-page table"), a CJK page
 * and, where the peer supports them, the invoice as PDF/A-3b, as PDF/UA and
 * password-protected. Each document is first checked
 * on both sides (a PDF, the same page count, PDF/A or PDF/UA claimed,
 * encrypted); a variant the peer refuses is reported with its answer and
 * skipped. Then one request at a time (medians, p99) and four at once
 * (documents per second, p50 and p99 under load). Not in CI: the peer is
 * built and started by hand (bench/README.md).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { getDocumentProxy } from 'unpdf';
import { concurrently } from './concurrent.js';
import { CJK_HTML, SMALL_HTML, TABLE_HTML, TABLE_ROWS } from './pages.js';
import type { BenchService } from './service-client.js';
import { percentile, ratio, summarize, type Summary } from './stats.js';

/** A peer to compare with: only Gotenberg's API is spoken. */
export type Peer = { name: 'gotenberg'; url: string };

/** Reads `--peer gotenberg=http://127.0.0.1:3000`. */
export function parsePeer(spec: string): Peer {
  const at = spec.indexOf('=');
  const name = at < 0 ? '' : spec.slice(0, at);
  const url = spec.slice(at + 1).replace(/\/+$/, '');
  if (name !== 'gotenberg') throw new Error(`--peer: expected gotenberg=URL (the only peer the bench speaks to), got "${spec}"`);
  if (!/^https?:\/\/[^/]+/.test(url)) throw new Error(`--peer: "${url}" is not an http(s) URL`);
  return { name, url };
}

/** What a PDF of a document must show on both sides, beyond being a PDF of the same page count. */
export type Mark = 'pdfa' | 'pdfua' | 'encrypted';

type PeerDocument = {
  id: string;
  title: string;
  html: string;
  /** The service's `pdf` options (its defaults otherwise). */
  pdf?: Record<string, unknown>;
  /** Gotenberg's form fields (its defaults otherwise). */
  fields?: Record<string, string>;
  /** The password the file opens with, for counting its pages. */
  password?: string;
  mark?: Mark;
};

const PASSWORDS = { user: 'bench-user', owner: 'bench-owner' };

const DOCUMENTS: PeerDocument[] = [
  { id: 'invoice', title: '1-page invoice', html: SMALL_HTML },
  { id: 'report', title: `report (${TABLE_ROWS}-row table)`, html: TABLE_HTML },
  { id: 'cjk', title: 'CJK page', html: CJK_HTML },
  { id: 'invoice-pdfa3b', title: '1-page invoice, PDF/A-3b', html: SMALL_HTML, pdf: { pdfa: 'PDF/A-3b' }, fields: { pdfa: 'PDF/A-3b' }, mark: 'pdfa' },
  { id: 'invoice-pdfua', title: '1-page invoice, PDF/UA', html: SMALL_HTML, pdf: { pdfua: true }, fields: { pdfua: 'true' }, mark: 'pdfua' },
  {
    id: 'invoice-protected',
    title: '1-page invoice, protected',
    html: SMALL_HTML,
    pdf: { protection: { userPassword: PASSWORDS.user, ownerPassword: PASSWORDS.owner, permissions: { copy: false } } },
    fields: { userPassword: PASSWORDS.user, ownerPassword: PASSWORDS.owner, allowCopying: 'false' },
    password: PASSWORDS.user,
    mark: 'encrypted',
  },
];

/**
 * Asked of the peer on every request so that both print the same pages: the
 * service prints US letter without margins by default, Gotenberg US letter
 * with 0.39 in margins (its defaults are kept otherwise: no backgrounds,
 * untagged unless PDF/UA, its own waits).
 */
const SAME_PAGE = { paperWidth: '8.5', paperHeight: '11', marginTop: '0', marginBottom: '0', marginLeft: '0', marginRight: '0' };

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const serviceBody = (doc: PeerDocument) => ({ page: { html: b64(doc.html) }, ...(doc.pdf ? { pdf: doc.pdf } : {}) });

/** An answer other than 200 from either side. */
class Refused extends Error {
  constructor(
    readonly side: string,
    readonly status: number,
    readonly text: string,
  ) {
    super(`${side} answered ${status}: ${text}`);
  }
}

type Answer = { ms: number; data: ArrayBuffer };

/** One render by the peer: index.html and the document's fields, posted as Gotenberg's multipart form. */
async function peerRender(peer: Peer, doc: PeerDocument): Promise<Answer> {
  const form = new FormData();
  form.append('files', new Blob([doc.html], { type: 'text/html' }), 'index.html');
  for (const [name, value] of Object.entries({ ...SAME_PAGE, ...doc.fields })) form.append(name, value);
  const started = performance.now();
  const res = await fetch(`${peer.url}/forms/chromium/convert/html`, { method: 'POST', body: form });
  const data = await res.arrayBuffer();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Refused(peer.name, res.status, Buffer.from(data).toString('utf8').slice(0, 300));
  return { ms, data };
}

/** One render by the service, the whole file read, as `BenchService.call` times it. */
async function serviceRender(bench: BenchService, doc: PeerDocument): Promise<Answer> {
  const body = JSON.stringify(serviceBody(doc));
  const started = performance.now();
  const res = await fetch(`${bench.service.baseUrl}/v1/pdf`, { method: 'POST', headers: { authorization: `Bearer ${bench.token}`, 'content-type': 'application/json' }, body });
  const data = await res.arrayBuffer();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Refused('the service', res.status, Buffer.from(data).toString('utf8').slice(0, 300));
  return { ms, data };
}

/** Whether the file claims what the document asks: PDF/A or PDF/UA in its XMP, or an encryption dictionary. */
function hasMark(data: ArrayBuffer, mark: Mark): boolean {
  const text = Buffer.from(data).toString('latin1');
  if (mark === 'pdfa') return /pdfaid:part/.test(text);
  if (mark === 'pdfua') return /pdfuaid:part/.test(text);
  return /\/Encrypt\s/.test(text);
}

/**
 * Checks one answer of a side: a PDF that opens (with the document's
 * password) and shows the document's mark; its page count. `data` stays
 * whole (pdf.js is given a copy: it detaches the buffer it reads).
 */
export async function checkedPages(side: string, doc: Pick<PeerDocument, 'id' | 'mark' | 'password'>, data: ArrayBuffer): Promise<number> {
  const head = Buffer.from(data.slice(0, 5)).toString('latin1');
  if (head !== '%PDF-') throw new Error(`${doc.id}: ${side} did not answer a PDF (it starts with ${JSON.stringify(head)})`);
  if (doc.mark && !hasMark(data, doc.mark)) throw new Error(`${doc.id}: ${side}'s PDF does not show ${doc.mark}`);
  const proxy = await getDocumentProxy(new Uint8Array(data.slice(0)), doc.password ? { password: doc.password } : {});
  return proxy.numPages;
}

type Side = 'service' | 'peer';
type Load = { docsPerSecond: number; p50: number; p99: number; failures: number };

export type PeerDocumentResult = {
  id: string;
  title: string;
  pages: number;
  bytes: Record<Side, number>;
  /** One request at a time, alternating sides: client-seen ms, and the p99 of the same series. */
  sequential: Record<Side, Summary & { p99: number }>;
  /** `concurrency` requests in flight. */
  loaded: Record<Side, Load>;
  raw: { sequential: Record<Side, number[]>; loaded: Record<Side, number[]> };
};

export type PeerResult = {
  peer: Peer;
  /** What the peer's `/version` answered. */
  version: string;
  concurrency: number;
  documents: PeerDocumentResult[];
  /** Variants the peer refused, with its answer: not measured on either side. */
  unsupported: Array<{ id: string; title: string; answer: string }>;
};

/**
 * Runs every document on both sides: `runs` measured rounds one request at a
 * time after `warmup`, then `rounds` of `count` renders `concurrency` at a
 * time, the side that starts alternating each round.
 */
export async function measurePeer(
  bench: BenchService,
  peer: Peer,
  opts: { runs: number; warmup: number; pauseMs: number; rounds: number; count: number; concurrency: number; log: (line: string) => void },
): Promise<PeerResult> {
  const versionRes = await fetch(`${peer.url}/version`).catch((error: unknown) => {
    throw new Error(`--peer: ${peer.url} does not answer (${error instanceof Error ? error.message : String(error)}); bench/README.md says how to start Gotenberg`);
  });
  const version = (await versionRes.text()).trim();
  if (!versionRes.ok) throw new Error(`--peer: ${peer.url}/version answered ${versionRes.status}: is it Gotenberg?`);
  const result: PeerResult = { peer, version, concurrency: opts.concurrency, documents: [], unsupported: [] };
  const render = (side: Side, doc: PeerDocument) => (side === 'service' ? serviceRender(bench, doc) : peerRender(peer, doc));
  for (const doc of DOCUMENTS) {
    // The check is also each side's first render of the document.
    let peerFirst: Answer;
    try {
      peerFirst = await peerRender(peer, doc);
    } catch (error) {
      if (!(error instanceof Refused) || !doc.mark) throw error;
      result.unsupported.push({ id: doc.id, title: doc.title, answer: `${error.status} ${error.text.replace(/\s+/g, ' ').trim()}` });
      opts.log(`  ${doc.title}: the peer refused it (${error.status} ${error.text.slice(0, 120)}), skipped`);
      continue;
    }
    const serviceFirst = await serviceRender(bench, doc);
    const pages = await checkedPages('the service', doc, serviceFirst.data);
    const peerPages = await checkedPages(peer.name, doc, peerFirst.data);
    if (pages !== peerPages) throw new Error(`${doc.id}: the service printed ${pages} pages, ${peer.name} ${peerPages}: not the same document`);

    const sequential: Record<Side, number[]> = { service: [], peer: [] };
    for (let i = 0; i < opts.warmup + opts.runs; i += 1) {
      const order: Side[] = i % 2 === 0 ? ['service', 'peer'] : ['peer', 'service'];
      for (const side of order) {
        const { ms } = await render(side, doc);
        if (i >= opts.warmup) sequential[side].push(ms);
        await sleep(opts.pauseMs);
      }
    }
    const loaded: Record<Side, number[]> = { service: [], peer: [] };
    const totals: Record<Side, { elapsedMs: number; count: number; failures: number }> = { service: { elapsedMs: 0, count: 0, failures: 0 }, peer: { elapsedMs: 0, count: 0, failures: 0 } };
    // A few unmeasured renders at this concurrency first: the service starts its instances, the peer its Chromium tabs.
    for (const side of ['service', 'peer'] as const) await concurrently(() => render(side, doc), opts.concurrency, opts.concurrency);
    for (let round = 0; round < opts.rounds; round += 1) {
      const order: Side[] = round % 2 === 0 ? ['service', 'peer'] : ['peer', 'service'];
      for (const side of order) {
        const run = await concurrently(() => render(side, doc), opts.concurrency, opts.count, loaded[side]);
        totals[side] = { elapsedMs: totals[side].elapsedMs + run.elapsedMs, count: totals[side].count + run.count, failures: totals[side].failures + run.failures };
        await sleep(500);
      }
    }
    bench.forgetServerSide();
    const load = (side: Side): Load => ({
      docsPerSecond: Math.round(((totals[side].count - totals[side].failures) / (totals[side].elapsedMs / 1000)) * 100) / 100,
      p50: percentile(loaded[side], 0.5),
      p99: percentile(loaded[side], 0.99),
      failures: totals[side].failures,
    });
    const entry: PeerDocumentResult = {
      id: doc.id,
      title: doc.title,
      pages,
      bytes: { service: serviceFirst.data.byteLength, peer: peerFirst.data.byteLength },
      sequential: {
        service: { ...summarize(sequential.service), p99: percentile(sequential.service, 0.99) },
        peer: { ...summarize(sequential.peer), p99: percentile(sequential.peer, 0.99) },
      },
      loaded: { service: load('service'), peer: load('peer') },
      raw: { sequential, loaded },
    };
    result.documents.push(entry);
    opts.log(
      `  ${doc.title}: service ${entry.sequential.service.median} ms, ${peer.name} ${entry.sequential.peer.median} ms; at ${opts.concurrency} at once ${entry.loaded.service.docsPerSecond}/s against ${entry.loaded.peer.docsPerSecond}/s`,
    );
  }
  return result;
}

/** The phase's table, as the report prints it. */
export function printPeer(result: PeerResult): string {
  const c = result.concurrency;
  const lines = [
    '',
    `Peer: ${result.peer.name} ${result.version} at ${result.peer.url} (same HTML, alternating rounds; ms, client-seen):`,
    `  ${'Document'.padEnd(28)} ${'pages'.padStart(5)}  ${'service p50 / p99'.padStart(19)}  ${'peer p50 / p99'.padStart(17)}  ${'p50 ratio'.padStart(9)}  ${`docs/s at ${c}: service / peer`.padStart(30)}  ${'ratio'.padStart(5)}  ${`p50 / p99 at ${c}: service; peer`.padStart(34)}`,
  ];
  for (const doc of result.documents) {
    const { service, peer } = doc.sequential;
    const load = doc.loaded;
    const failed = load.service.failures || load.peer.failures ? ` (failed: ${load.service.failures} / ${load.peer.failures})` : '';
    lines.push(
      `  ${doc.title.padEnd(28)} ${String(doc.pages).padStart(5)}  ${`${service.median} / ${service.p99}`.padStart(19)}  ${`${peer.median} / ${peer.p99}`.padStart(17)}  ${String(ratio(service.median, peer.median)).padStart(9)}  ${`${load.service.docsPerSecond} / ${load.peer.docsPerSecond}`.padStart(30)}  ${String(ratio(load.service.docsPerSecond, load.peer.docsPerSecond)).padStart(5)}  ${`${load.service.p50} / ${load.service.p99}; ${load.peer.p50} / ${load.peer.p99}`.padStart(34)}${failed}`,
    );
  }
  lines.push(`  p50 ratio: service ÷ peer (below 1: the service is faster); docs/s ratio: service ÷ peer (above 1: the service does more).`);
  for (const skipped of result.unsupported) lines.push(`  not compared: ${skipped.title}: the peer answered ${skipped.answer.slice(0, 160)}`);
  // Gotenberg converts to PDF/A and PDF/UA with LibreOffice only (its libreoffice-pdfengine): its Chromium-only build answers 500.
  if (result.peer.name === 'gotenberg' && result.unsupported.length) lines.push('  (Gotenberg makes PDF/A and PDF/UA with LibreOffice: a build without it cannot; bench/README.md)');
  return `${lines.join('\n')}\n`;
}
