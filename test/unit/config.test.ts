import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../lib/config.js';

describe('loadConfig › ISOLATION_PHASE', () => {
  it('runs isolation in the post-response phase when unset or empty (serverless.yml passes an unset variable as empty)', () => {
    assert.equal(loadConfig({}).isolationPhase, 'post-response');
    assert.equal(loadConfig({ ISOLATION_PHASE: '' }).isolationPhase, 'post-response');
  });

  it('takes post-response and inline', () => {
    assert.equal(loadConfig({ ISOLATION_PHASE: 'post-response' }).isolationPhase, 'post-response');
    assert.equal(loadConfig({ ISOLATION_PHASE: 'inline' }).isolationPhase, 'inline');
  });

  it('refuses any other value at cold start, naming the variable and the values it takes', () => {
    assert.throws(() => loadConfig({ ISOLATION_PHASE: 'after' }), /ISOLATION_PHASE must be post-response or inline/);
    assert.throws(() => loadConfig({ ISOLATION_PHASE: 'Inline' }), /ISOLATION_PHASE/);
  });
});
