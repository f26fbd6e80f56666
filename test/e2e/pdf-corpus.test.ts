/**
 * The world's PDFs through every finishing step (issue 45's proof): a few
 * hundred files of PDF.js's own test suite (test/fixtures/pdfjs, Apache-2.0,
 * see its README: broken cross-reference tables, forms and XFA, encryption,
 * Type 3, CID and embedded Type 1 fonts, JBIG2, JPX, CCITT and inline
 * images, annotations, rotated pages, pages without a MediaBox) go through
 * `POST /v1/pdf/process` and as a merge's `document` part. Every answer is a
 * 200 or a 4xx in the contract's shape, never a 5xx and never a hang; the
 * function instances stay within their memory size; the service still
 * renders after.
 *
 * What runs: every file through facts as JSON, a watermark and a merge part;
 * the other steps (compress, flatten, a page image, the dev signer's
 * signature, pages + rotate, PDF/A) rotate over the files, one each, so every
 * step sees a sixth of the corpus (about 43 files, a different sixth when
 * files are added) and the test stays within five minutes on two cores:
 * 1,046 requests of 0.1 s (a page image 0.5 s) on an idle machine, two
 * minutes; 0.2–0.3 s (1 s) on a machine other work loads. Every pair in
 * KNOWN_FAILURES runs too, so the list is checked whole each run.
 *
 * `PDF_CORPUS_ALL_STEPS=1` runs every step on every file (2,340 requests,
 * twelve minutes loaded), for finding what a change broke;
 * `PDF_CORPUS_FILES=a.pdf,b.pdf` only those files; `PDF_CORPUS_VERBOSE=1`
 * prints every 4xx too.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { processTree } from '../../scripts/local-runtime/process-tree.js';
import { b64, startService, type RunningService } from '../helpers/service.js';

const CORPUS = fileURLToPath(new URL('../fixtures/pdfjs/', import.meta.url));

/** The user passwords PDF.js's test manifest (test/test_manifest.json) gives its encrypted files. */
const PASSWORDS: Record<string, string> = {
  'bug1782186.pdf': 'Hello',
  'issue15893_reduced.pdf': 'test',
  'issue21579.pdf': 'pässwört',
  'issue3371.pdf': 'ELXRTQWS',
  'issue6010_1.pdf': 'abc',
  'issue6010_2.pdf': 'æøå',
  // As the manifest gives it, before SASLprep (RFC 4013: the soft hyphen maps to nothing, ª to a), which an R 6 reader applies.
  'saslprep-r6.pdf': 'S\u00aaSL\u00adprep',
};

type Step = 'facts' | 'watermark' | 'merge part' | 'compress' | 'flatten' | 'page image' | 'signature' | 'pages + rotate' | 'pdfa';

/** Every file goes through these. */
const CHEAP: Step[] = ['facts', 'watermark', 'merge part'];
/** Each file goes through one of these, turn by turn (all of them with PDF_CORPUS_ALL_STEPS=1). */
const ROTATING: Step[] = ['compress', 'flatten', 'page image', 'signature', 'pages + rotate', 'pdfa'];

/**
 * The (file, step) pairs that answer a 5xx or hang today, each with its
 * cause; fixes land by emptying this list. The test fails on a failure not
 * listed here, and on a listed pair that now passes (take it out).
 */
const KNOWN_FAILURES: Array<{ file: string; step: Step; cause: string }> = [];

const known = new Map(KNOWN_FAILURES.map((entry) => [`${entry.file} | ${entry.step}`, entry]));

/** The request a step makes of one file: path and body. */
function requestOf(step: Step, document: string, password: string | undefined): [string, Record<string, unknown>] {
  const process = (body: Record<string, unknown>): [string, Record<string, unknown>] => ['/v1/pdf/process', { document, ...(password !== undefined ? { password } : {}), ...body }];
  switch (step) {
    case 'facts':
      return process({ output: 'JSON' });
    case 'watermark':
      return process({ pdf: { watermark: { text: 'CORPUS', fontSize: 24 } } });
    case 'merge part':
      return ['/v1/pdf/merge', { parts: [{ document, title: 'Corpus' }] }];
    case 'compress':
      return process({ pdf: { compress: true } });
    case 'flatten':
      return process({ pdf: { flatten: true } });
    case 'page image':
      return process({ output: 'PNG', image: { dpi: 36 } });
    case 'signature':
      return process({ pdf: { signature: { reason: 'Corpus' } } });
    case 'pages + rotate':
      return process({ pdf: { pages: '1', rotate: { angle: 90 } } });
    case 'pdfa':
      return process({ pdf: { pdfa: 'PDF/A-2b' } });
  }
}

/** What one request gave: its status (0 when it did not answer in time) and, when it failed, why. */
type Outcome = { file: string; step: Step; status: number; ms: number; problem?: string; log?: string };

/** Past this an answer is a hang: the service's own budget is 25 s and Lambda's timeout 29 s. */
const HANG_MS = 60_000;

/**
 * A 4xx is the contract's: JSON with a message; a 400 or 422 also with its
 * code and the fields it names. Answers what is wrong with it, or undefined.
 */
function contractProblem(status: number, body: string): string | undefined {
  let parsed: { message?: unknown; code?: unknown; fields?: unknown };
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch {
    return `a ${status} whose body is not JSON: ${body.slice(0, 200)}`;
  }
  if (typeof parsed.message !== 'string') return `a ${status} without a message: ${body.slice(0, 200)}`;
  if ((status === 400 || status === 422) && (typeof parsed.code !== 'string' || typeof parsed.fields !== 'object' || parsed.fields === null)) {
    return `a ${status} without its code and fields: ${body.slice(0, 200)}`;
  }
  return undefined;
}

/** An error as the service's logger writes it (powertools: name, message, stack and the cause, nested). */
type LoggedError = { name?: string; message?: string; stack?: string; cause?: LoggedError };

/** The service's error lines (message and the top of the stack) among the log written since `from`. */
function errorsLogged(log: string): string {
  const lines: string[] = [];
  for (const line of log.split('\n')) {
    const json = line.slice(line.indexOf('{'));
    if (!/"level":"(ERROR|WARN)"/.test(json)) {
      // Not the logger's JSON (its metric lines say "outcome":"error"): the runtime's own words (a timeout, a killed instance).
      if (!json.startsWith('{"') && /Error|error|Task timed out|exited|killed/.test(line)) lines.push(line.slice(0, 400));
      continue;
    }
    try {
      const entry = JSON.parse(json) as { message?: string; error?: LoggedError };
      // The access line of the failed request is an error line too, with no error's words in it.
      if (!entry.error?.stack && !entry.error?.message) continue;
      lines.push(`${entry.message ?? ''}:`);
      // A FinishingError wraps the PDF library's error: its cause holds the frame that threw.
      for (let error: LoggedError | undefined = entry.error, depth = 0; error && depth < 4; error = error.cause, depth++) {
        lines.push(`  ${depth ? 'caused by ' : ''}${error.stack?.split('\n').slice(0, 8).join('\n    ') ?? `${error.name ?? ''}: ${error.message ?? ''}`}`);
      }
    } catch {
      lines.push(line.slice(0, 400));
    }
  }
  return lines.join('\n');
}

/** The peak memory of each function instance seen so far, MiB, and its memory size. */
type InstanceMemory = { pid: number; memoryMb: number; peakPssMib: number; peakNodeHwmMib: number };

const readOr = (path: string): string => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};
const kib = (text: string, field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);

/**
 * Samples the memory of every function instance under this test (the
 * instance's node process and its Chromium, PSS summed: what Lambda counts
 * against the function's memory size), keeping each one's peak; the node
 * process's own peak (VmHWM) covers a spike between two samples.
 */
function watchInstances(everyMs: number): { peaks: () => InstanceMemory[]; stop: () => void } {
  const seen = new Map<number, InstanceMemory>();
  const sample = () => {
    for (const pid of processTree(process.pid)) {
      if (!readOr(`/proc/${pid}/cmdline`).includes('lambda-instance')) continue;
      const memoryMb = Number(/(?:^|\0)AWS_LAMBDA_FUNCTION_MEMORY_SIZE=(\d+)/.exec(readOr(`/proc/${pid}/environ`))?.[1] ?? 0);
      let pss = 0;
      for (const member of processTree(pid)) pss += kib(readOr(`/proc/${member}/smaps_rollup`), 'Pss');
      const hwm = kib(readOr(`/proc/${pid}/status`), 'VmHWM');
      const entry = seen.get(pid) ?? { pid, memoryMb, peakPssMib: 0, peakNodeHwmMib: 0 };
      entry.peakPssMib = Math.max(entry.peakPssMib, Math.round(pss / 1024));
      entry.peakNodeHwmMib = Math.max(entry.peakNodeHwmMib, Math.round(hwm / 1024));
      seen.set(pid, entry);
    }
  };
  const timer = setInterval(sample, everyMs);
  return {
    peaks: () => {
      sample();
      return [...seen.values()];
    },
    stop: () => clearInterval(timer),
  };
}

const corpus = readdirSync(CORPUS)
  .filter((name) => name.endsWith('.pdf'))
  .sort();

/** The steps each file goes through in this run. */
function plan(): Array<{ file: string; step: Step }> {
  const all = process.env.PDF_CORPUS_ALL_STEPS === '1';
  const only = process.env.PDF_CORPUS_FILES?.split(',');
  const pairs: Array<{ file: string; step: Step }> = [];
  for (const [index, file] of corpus.entries()) {
    if (only && !only.includes(file)) continue;
    const rotating = all ? ROTATING : [ROTATING[index % ROTATING.length] as Step];
    for (const step of [...CHEAP, ...ROTATING]) {
      if (CHEAP.includes(step) || rotating.includes(step) || known.has(`${file} | ${step}`)) pairs.push({ file, step });
    }
  }
  return pairs;
}

describe('PDF.js test files through every finishing step (POST /v1/pdf/process and merge parts)', () => {
  let service: RunningService;
  let memory: ReturnType<typeof watchInstances>;
  const outcomes: Outcome[] = [];

  before(async () => {
    service = await startService();
    memory = watchInstances(250);
  });

  after(async () => {
    memory?.stop();
    await service?.stop();
  });

  it('answers every file at every step with a 200 or a 4xx in the contract\'s shape, within the bound; the failures are exactly the known ones', { timeout: 45 * 60_000 }, async () => {
    // Prepare
    assert.ok(corpus.length >= 200, `a corpus of ${corpus.length} files`);
    const pairs = plan();
    for (const entry of KNOWN_FAILURES) assert.ok(corpus.includes(entry.file), `KNOWN_FAILURES names ${entry.file}, which is not in the corpus`);

    // Act
    for (const { file, step } of pairs) {
      const [path, json] = requestOf(step, readFileSync(CORPUS + file).toString('base64'), PASSWORDS[file]);
      const from = service.output().length;
      const started = Date.now();
      let status = 0;
      let body = '';
      try {
        let res = await service.request(path, { json, signal: AbortSignal.timeout(HANG_MS) });
        // A 429 is this test's pace, not the file: wait as told and ask again.
        for (let retry = 0; res.status === 429 && retry < 5; retry++) {
          await new Promise((resolve) => setTimeout(resolve, 1_000 * Number(res.headers.get('retry-after') ?? 1)));
          res = await service.request(path, { json, signal: AbortSignal.timeout(HANG_MS) });
        }
        status = res.status;
        body = status >= 400 ? await res.text() : (await res.arrayBuffer(), '');
      } catch (error) {
        body = String(error);
      }
      const ms = Date.now() - started;
      const problem =
        status === 0 ? `no answer within ${HANG_MS / 1000} s (${body})` : status >= 500 ? `${status}: ${body.slice(0, 300)}` : status >= 400 ? contractProblem(status, body) : undefined;
      // The log of the request (its error lines and stack) is only read for a failure.
      const outcome: Outcome = { file, step, status, ms, ...(problem ? { problem, log: errorsLogged(service.output().slice(from)) } : {}) };
      outcomes.push(outcome);
      if (problem) console.log(`# ${file} | ${step}: ${problem}\n${outcome.log}`);
      else if (status >= 400 && process.env.PDF_CORPUS_VERBOSE === '1') console.log(`# ${file} | ${step}: ${status} ${body.slice(0, 300)}`);
    }

    // Assess
    const failed = outcomes.filter((outcome) => outcome.problem !== undefined);
    const unexpected = failed.filter((outcome) => !known.has(`${outcome.file} | ${outcome.step}`));
    const ran = new Set(outcomes.map((outcome) => `${outcome.file} | ${outcome.step}`));
    // A listed pair this run did not make (PDF_CORPUS_FILES) is not judged.
    const fixed = KNOWN_FAILURES.filter((entry) => ran.has(`${entry.file} | ${entry.step}`) && !failed.some((outcome) => outcome.file === entry.file && outcome.step === entry.step));
    const counts = new Map<string, number>();
    for (const outcome of outcomes) counts.set(`${outcome.step} ${outcome.status}`, (counts.get(`${outcome.step} ${outcome.status}`) ?? 0) + 1);
    const time = new Map<Step, number[]>();
    for (const outcome of outcomes) time.set(outcome.step, [...(time.get(outcome.step) ?? []), outcome.ms]);
    console.log(`# mean ms by step: ${[...time].map(([step, list]) => `${step} ${Math.round(list.reduce((a, b) => a + b, 0) / list.length)} (${list.length})`).join(', ')}`);
    const slowest = [...outcomes].sort((a, b) => b.ms - a.ms).slice(0, 5);
    console.log(`# ${outcomes.length} requests over ${corpus.length} files; answers by step: ${[...counts].sort().map(([key, n]) => `${key}: ${n}`).join(', ')}`);
    console.log(`# slowest: ${slowest.map((outcome) => `${outcome.file} | ${outcome.step} ${outcome.ms} ms`).join(', ')}`);
    assert.deepEqual(
      unexpected.map((outcome) => `${outcome.file} | ${outcome.step}: ${outcome.problem}`),
      [],
      'failures not in KNOWN_FAILURES (fix them, or list them with their cause)',
    );
    assert.deepEqual(
      fixed.map((entry) => `${entry.file} | ${entry.step}`),
      [],
      'KNOWN_FAILURES that now pass: take them out of the list',
    );
  });

  it('keeps every function instance within its memory size through the corpus', () => {
    // Act
    const peaks = memory.peaks();

    // Assess
    console.log(`# instances' peaks: ${peaks.map((peak) => `pid ${peak.pid}: ${peak.peakPssMib} MiB PSS with Chromium, node ${peak.peakNodeHwmMib} MiB (of ${peak.memoryMb})`).join('; ')}`);
    assert.ok(peaks.length > 0, 'a function instance was seen');
    const over = peaks.filter((peak) => peak.memoryMb > 0 && (peak.peakPssMib > peak.memoryMb || peak.peakNodeHwmMib > peak.memoryMb));
    assert.deepEqual(over, []);
  });

  it('still renders after the corpus', async () => {
    // Act
    const res = await service.request('/v1/pdf', { json: { page: { html: b64('<h1>After the corpus</h1>') } }, signal: AbortSignal.timeout(HANG_MS) });

    // Assess
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(Buffer.from(await res.arrayBuffer()).subarray(0, 5).toString('latin1'), '%PDF-');
  });
});
