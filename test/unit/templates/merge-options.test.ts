import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mergeOptions } from '../../../lib/templates/merge-options.js';

describe('mergeOptions', () => {
  it('lets the request win and merges nested objects key by key', () => {
    const stored = { page: { url: 'https://a.example', headers: { a: '1', b: '2' }, waitUntil: 'load' } };
    const request = { page: { headers: { b: 'two', c: '3' }, waitUntil: 'auto' } };
    assert.deepEqual(mergeOptions(stored, request), {
      page: { url: 'https://a.example', headers: { a: '1', b: 'two', c: '3' }, waitUntil: 'auto' },
    });
  });

  it('replaces arrays whole', () => {
    const stored = { cookies: [{ name: 'a', value: '1' }, { name: 'b', value: '2' }] };
    const request = { cookies: [{ name: 'c', value: '3' }] };
    assert.deepEqual(mergeOptions(stored, request), { cookies: [{ name: 'c', value: '3' }] });
  });

  it('clears a stored value with an explicit null, and keeps it when the key is absent', () => {
    const stored = { format: 'a5', landscape: true, margin: { top: '1in' } };
    assert.deepEqual(mergeOptions(stored, { landscape: null }), { format: 'a5', landscape: null, margin: { top: '1in' } });
    assert.deepEqual(mergeOptions(stored, { margin: null }), { format: 'a5', landscape: true, margin: null });
    assert.deepEqual(mergeOptions(stored, {}), stored);
  });

  it('replaces a stored scalar with an object and an object with a scalar', () => {
    assert.deepEqual(mergeOptions({ width: '5in' }, { width: { x: 1 } }), { width: { x: 1 } });
    assert.deepEqual(mergeOptions({ margin: { top: '1in' } }, { margin: 'none' }), { margin: 'none' });
  });

  it('works with either side missing', () => {
    assert.deepEqual(mergeOptions(undefined, { a: 1 }), { a: 1 });
    assert.deepEqual(mergeOptions({ a: 1 }, null), { a: 1 });
    assert.deepEqual(mergeOptions(null, undefined), {});
  });

  it('never modifies its inputs', () => {
    const stored = { page: { headers: { a: '1' } }, list: [1, 2] };
    const request = { page: { headers: { b: '2' } } };
    const merged = mergeOptions(stored, request);
    (merged.page as { headers: Record<string, string> }).headers.z = 'x';
    (merged.list as number[]).push(3);
    assert.deepEqual(stored, { page: { headers: { a: '1' } }, list: [1, 2] });
    assert.deepEqual(request, { page: { headers: { b: '2' } } });
  });

  it('never copies __proto__ keys, so caller data cannot pollute prototypes', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "page": {"__proto__": {"polluted": true}}}') as Record<string, unknown>;
    const merged = mergeOptions({ page: {} }, hostile);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf(merged), Object.prototype);
    assert.deepEqual(merged, { page: {} });
  });
});
