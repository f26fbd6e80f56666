/**
 * The request body as JSON: RFC 8259 §8.1 lets a parser ignore a leading byte
 * order mark rather than treat it as an error, and some clients (PowerShell,
 * Windows editors) send one.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../../lib/errors.js';
import { parseJsonBody } from '../../../lib/http/json-body.js';
import type { HttpEvent } from '../../../lib/http/types.js';

const event = (body: string | undefined, isBase64Encoded = false) => ({ body, isBase64Encoded }) as HttpEvent;

describe('parseJsonBody', () => {
  it('ignores a leading byte order mark, in a text or a base64 body', () => {
    assert.deepEqual(parseJsonBody(event('\uFEFF{"name":"a"}')), { name: 'a' });
    assert.deepEqual(parseJsonBody(event(Buffer.from('\uFEFF{"name":"a"}').toString('base64'), true)), { name: 'a' });
  });

  it('reads an absent or blank body as {} and refuses malformed JSON with a 400 on body', () => {
    assert.deepEqual(parseJsonBody(event(undefined)), {});
    assert.deepEqual(parseJsonBody(event('  ')), {});
    assert.throws(() => parseJsonBody(event('{"name":')), (error) => error instanceof ValidationError && 'body' in error.fields);
  });
});
