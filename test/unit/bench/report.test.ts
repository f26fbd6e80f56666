import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { judgeTargets, printReport, type BenchResults, type LatencyResult, type ServerSideSummary } from '../../../bench/report.js';
import { summarize } from '../../../bench/stats.js';

const server = (handlerMs: number, postResponseMs: number): ServerSideSummary => ({
  samples: 3,
  apiMs: handlerMs + 5,
  handlerMs,
  postResponseMs,
  billedMs: handlerMs + postResponseMs,
  reportBilledMs: handlerMs + postResponseMs + 2,
  renderMs: handlerMs - 20,
  phases: {},
});

/** A small-PDF row measured on both stacks: post-response billed 300 (think) and 340 (sequential), inline 250 and 400. */
function smallPdf(): LatencyResult {
  const s = (ms: number) => summarize([ms, ms, ms]);
  return {
    id: 'pdf-small',
    title: 'small PDF',
    sequential: s(150),
    think: s(75),
    bare: s(200),
    bareReusedPage: s(115),
    bytes: { service: 1000, bare: 1000 },
    cpuMsPerRender: { sequential: 345, think: 315, bare: 200, bareReusedPage: 155 },
    serverSide: { sequential: server(90, 250), think: server(60, 240) },
    inline: {
      sequential: s(450),
      think: s(220),
      cpuMsPerRender: { sequential: 343, think: 240 },
      serverSide: { sequential: server(400, 0), think: server(250, 0) },
      raw: { sequential: [], think: [], billedSequential: [], billedThink: [] },
    },
    raw: { sequential: [], think: [], bare: [], billedSequential: [], billedThink: [] },
  };
}

const results = (): BenchResults => ({
  date: '2026-11-26T02:00:00.000Z',
  machine: { cpu: 'test', cpus: 2, memoryGiB: 8, kernel: 'x', node: 'v22', chromium: 'HeadlessChrome' },
  options: { quick: false, runs: 3, warmup: 1, pauseMs: 250, thinkMs: 1000, inline: true },
  latency: [smallPdf()],
});

describe('bench report › post-response against inline (same run)', () => {
  it("judges issue 24's billed target against the inline stack of the same run, per client", () => {
    // Act
    const billed = judgeTargets(results()).filter((target) => target.name.startsWith('pdf-small billed'));

    // Assess: 340 / 400 met, 300 / 250 not
    assert.deepEqual(
      billed.map((target) => [target.value, target.met]),
      [
        ['340 / 400 ms, 0.85×', true],
        ['300 / 250 ms, 1.2×', false],
      ],
    );
  });

  it('prints both designs, their billed ratio and a cost line for inline', () => {
    // Act
    const text = printReport(results());

    // Assess
    assert.match(text, /service inline, sequential client \| 450 \(450–450\)/);
    assert.match(text, /\| pdf-small \| think-time client \| 75 \/ 220 +\| 300 \/ 250 +\| +1\.2× \| 302 \/ 252 +\| 315 \/ 240/);
    assert.match(text, /\| pdf-small \(inline\) \| +250 \|/);
  });
});

describe('bench report › pages by URL against bare load (issue 37)', () => {
  /** A URL row: service 132 (sequential) and 110 (think) against bare's load at 120 (load), 250 / 230 against 120 (auto). */
  const urlRow = (id: 'url-load' | 'url-auto', sequential: number, think: number): LatencyResult => ({
    ...smallPdf(),
    id,
    title: id,
    sequential: summarize([sequential, sequential, sequential]),
    think: summarize([think, think, think]),
    bare: summarize([120, 120, 120]),
    bareReusedPage: undefined,
    inline: undefined,
  });

  it('judges load against 1.1× and auto against 1.3× with the late content caught, and says the floor of catching it', () => {
    // Prepare
    const run = { ...results(), latency: [urlRow('url-load', 132, 110), urlRow('url-auto', 250, 230)], checks: { 'url-auto': { lateContentCaught: true } } };
    // Act
    const url = judgeTargets(run).filter((target) => target.name.startsWith('url-'));
    // Assess: 1.1× met, 0.92× met; auto 2.08× and 1.92× not, caught, with the floor (120 + 100) / 120
    assert.deepEqual(
      url.map((target) => [target.name, target.value, target.met]),
      [
        ['url-load, sequential client, vs bare load', '1.1×', true],
        ['url-auto, sequential client, vs bare load, late content caught', "2.08×, caught (catching it takes ≥ 1.83×: bare's load + the late answer's 100 ms)", false],
        ['url-load, think-time client, vs bare load', '0.92×', true],
        ['url-auto, think-time client, vs bare load, late content caught', "1.92×, caught (catching it takes ≥ 1.83×: bare's load + the late answer's 100 ms)", false],
      ],
    );
  });

  it('does not meet auto when the late content was missed, however fast', () => {
    const run = { ...results(), latency: [urlRow('url-auto', 130, 130)], checks: { 'url-auto': { lateContentCaught: false } } };
    const auto = judgeTargets(run).filter((target) => target.name.startsWith('url-auto'));
    assert.deepEqual(auto.map((target) => target.met), [false, false]);
    assert.match(auto[0]?.value ?? '', /MISSED/);
  });
});
