import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LAMBDA_RESPONSE_LIMIT_BYTES, fitsLambdaResponse, rawFileResponse } from '../../../lib/delivery/raw-response.js';
import { file } from '../../../lib/http/responses.js';
import { memoryFileStore } from '../jobs/fakes.js';

const deps = () => ({ files: memoryFileStore(), config: { fileLifetimeSeconds: 3600 } });

/** The largest file whose base64 response still fits, found by the rule itself. */
function largestFittingSize(): number {
  let low = 0;
  let high = LAMBDA_RESPONSE_LIMIT_BYTES;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fitsLambdaResponse(file(Buffer.alloc(mid), 'image/png'))) low = mid;
    else high = mid - 1;
  }
  return low;
}

describe('rawFileResponse', () => {
  it('answers 200 with the file itself when it fits in a Lambda response', async () => {
    // Prepare
    const d = deps();

    // Act
    const response = await rawFileResponse(d, 'acct-1', { body: Buffer.from('%PDF-1.7'), contentType: 'application/pdf' });

    // Assess
    assert.equal(response.statusCode, 200);
    assert.equal(Buffer.from(response.body ?? '', 'base64').toString(), '%PDF-1.7');
    assert.equal(d.files.files.size, 0, 'nothing stored for a file answered directly');
  });

  it('answers 303 to a temporary copy when the base64 answer would pass Lambda’s 6,291,556-byte limit', async () => {
    // Prepare
    const d = deps();
    const body = Buffer.alloc(5 * 1024 * 1024, 7);

    // Act
    const response = await rawFileResponse(d, 'acct-1', { body, contentType: 'image/png' });

    // Assess
    assert.equal(response.statusCode, 303);
    const [stored] = [...d.files.files.values()];
    assert.ok(stored);
    assert.deepEqual(stored.body, body);
    assert.equal(stored.file.contentType, 'image/png');
    assert.equal(response.headers?.location, `https://files.example/${stored.file.key}?expires=3600`);
    assert.match(String(JSON.parse(response.body ?? '{}').message), /Location/);
  });

  it('draws the line where the whole JSON result, base64 body and headers, nears 6,291,556 bytes', () => {
    // Act
    const largest = largestFittingSize();
    const serialized = Buffer.byteLength(JSON.stringify(file(Buffer.alloc(largest), 'image/png')));

    // Assess: about 4.7 MB of file, with room left for headers added after the handler.
    assert.ok(largest > 4_600_000 && largest < 4_720_000, `largest direct file ${largest} bytes`);
    assert.ok(serialized <= LAMBDA_RESPONSE_LIMIT_BYTES - 8 * 1024, `serialized ${serialized}`);
    assert.ok(serialized > LAMBDA_RESPONSE_LIMIT_BYTES - 32 * 1024, `serialized ${serialized}`);
    assert.equal(fitsLambdaResponse(file(Buffer.alloc(largest + 3), 'image/png')), false);
  });
});
