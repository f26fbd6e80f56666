import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { billedMs, costPer1000, costTable, initShareMs, PRICES } from '../../../bench/cost.js';

describe('billedMs', () => {
  it('bills the handler and the post-response phase after its answer, rounded up to 1 ms', () => {
    assert.equal(billedMs(107.2, 20.1), 128);
    assert.equal(billedMs(90, 0), 90);
  });

  it('is NaN when the post-response phase is unknown, never the handler alone', () => {
    assert.ok(Number.isNaN(billedMs(90, Number.NaN)));
  });
});

describe('initShareMs', () => {
  it('spreads one INIT over the renders of each cold start', () => {
    // 10 cold starts per 1,000 renders: each render carries a hundredth of an INIT.
    assert.equal(initShareMs(700, 10), 7);
    assert.equal(initShareMs(699.2, 100), 70);
  });
});

describe('costPer1000', () => {
  it('prices 1,000 raw renders: compute plus HTTP API, Lambda and DynamoDB requests', () => {
    // Prepare: 100 ms at 1,024 MB (1 GB): 100 GB-ms per render, 100 GB-s per 1,000.
    const compute = 100 * PRICES.gbSecond;
    const requests = 1000 * (PRICES.httpApiPerRequest + PRICES.perRequest + PRICES.dynamoWrite);

    // Act
    const dollars = costPer1000(100, 'raw', { memoryMb: 1024, initMs: 0 });

    // Assess
    assert.equal(dollars, Math.round((compute + requests) * 10000) / 10000);
    assert.equal(dollars, 0.0035);
  });

  it('bills INIT for each assumed cold start', () => {
    // 1 s of INIT, 10 cold starts per 1,000: 10 ms more per render, 10 GB-s per 1,000 at 1 GB.
    const without = costPer1000(100, 'raw', { memoryMb: 1024, initMs: 0 });
    const withInit = costPer1000(100, 'raw', { memoryMb: 1024, initMs: 1000, coldStartsPer1000: 10 });
    assert.equal(withInit, 0.0037);
    assert.ok(withInit > without);
    assert.equal(costPer1000(100, 'raw', { memoryMb: 1024, initMs: Number.NaN }), without);
  });

  it('costs more when the post-response phase is billed on top of the handler', () => {
    const handlerOnly = costPer1000(billedMs(100, 0), 'raw', { memoryMb: 1536, initMs: 0 });
    const billed = costPer1000(billedMs(100, 60), 'raw', { memoryMb: 1536, initMs: 0 });
    assert.ok(billed > handlerOnly);
  });

  it('rises from raw to sync to async: more calls per render', () => {
    const assumptions = { memoryMb: 1536, initMs: 700 };
    const raw = costPer1000(120, 'raw', assumptions);
    const sync = costPer1000(120, 'sync', assumptions);
    const async = costPer1000(120, 'async', assumptions);
    assert.ok(raw < sync && sync < async);
  });
});

describe('costTable', () => {
  it('prices each render in every mode and leaves out renders with no billed duration', () => {
    // Act
    const rows = costTable(
      [
        { id: 'pdf-small', billedMs: 128 },
        { id: 'no-report', billedMs: Number.NaN },
      ],
      { memoryMb: 1536, initMs: 700, coldStartsPer1000: 10 },
    );

    // Assess
    assert.deepEqual(
      rows.map((row) => row.id),
      ['pdf-small'],
    );
    const [row] = rows;
    assert.equal(row?.initShareMs, 7);
    assert.equal(row?.dollars.raw, costPer1000(128, 'raw', { memoryMb: 1536, initMs: 700 }));
    assert.deepEqual(Object.keys(row?.dollars ?? {}), ['raw', 'sync', 'async']);
  });
});
