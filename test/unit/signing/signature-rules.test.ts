import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { ValidationError } from '../../../lib/errors.js';
import { buildDocumentPlan } from '../../../lib/plan/build-plan.js';
import { checkSignatureAvailable, checkSignerGranted } from '../../../lib/plan/signature-check.js';
import { MergeRequestSchema } from '../../../lib/schemas/merge-requests.js';
import { PdfRequestSchema } from '../../../lib/schemas/render-requests.js';
import { SignerNotGrantedError } from '../../../lib/signing/errors.js';
import { toResponse } from '../../../lib/http/error-mapper.js';
import { readSigningConfig } from '../../../lib/signing/signing-config.js';
import type { TokenRecord } from '../../../lib/tokens/token-store.js';

const page = { html: Buffer.from('<p>x</p>').toString('base64') };
const fieldsOf = (schema: v.GenericSchema, input: unknown) => {
  const result = v.safeParse(schema, input);
  return result.success ? {} : Object.fromEntries(result.issues.map((issue) => [v.getDotPath(issue), issue.message]));
};
const planOf = (signature: Record<string, unknown>) => {
  const parsed = v.parse(PdfRequestSchema, { page, pdf: { signature } });
  return buildDocumentPlan({ output: 'PDF', page: parsed.page, pdf: parsed.pdf }, undefined);
};
const token = (signers?: string[]): TokenRecord => ({
  tokenHash: 'h',
  accountId: 'a',
  active: true,
  monthlyLimit: null,
  ratePerSecond: 10,
  webhookSecret: 'whsec_x',
  createdAt: '',
  ...(signers ? { signers } : {}),
});
const withSigner = readSigningConfig('{"default":{"kind":"local","folder":"/tmp/x"}}', '');

describe('pdf.signature at the edge', () => {
  it('plans the defaults: the default signer at B-B, approval, invisible', () => {
    const plan = planOf({});
    assert.ok('finishing' in plan);
    assert.deepEqual(plan.finishing.sign, { signer: 'default', level: 'B-B' });
  });

  it('names pdf.signature.signer when no such signer is configured, pdf.signature.level for B-T without a timestamp authority', () => {
    assert.throws(
      () => checkSignatureAvailable(planOf({ signer: 'legal', level: 'B-T' }), withSigner),
      (error: unknown) => error instanceof ValidationError && Object.keys(error.fields).sort().join() === 'pdf.signature.level,pdf.signature.signer',
    );
    assert.doesNotThrow(() => checkSignatureAvailable(planOf({ level: 'B-T' }), readSigningConfig('{"default":{"kind":"local","folder":"/x"}}', 'http://127.0.0.1:1/')));
  });

  it('plans B-LT, which needs the timestamp authority as B-T does (400 naming pdf.signature.level without one)', () => {
    const plan = planOf({ level: 'B-LT' });
    assert.ok('finishing' in plan);
    assert.equal(plan.finishing.sign?.level, 'B-LT');
    assert.throws(
      () => checkSignatureAvailable(plan, withSigner),
      (error: unknown) => error instanceof ValidationError && Object.keys(error.fields).join() === 'pdf.signature.level',
    );
    assert.doesNotThrow(() => checkSignatureAvailable(plan, readSigningConfig('{"default":{"kind":"local","folder":"/x"}}', 'http://127.0.0.1:1/')));
  });

  it('refuses a signer the token was not granted (403 with a code), a granted one passes', () => {
    assert.throws(() => checkSignerGranted(planOf({}), token()), (error: unknown) => error instanceof SignerNotGrantedError && toResponse(error).statusCode === 403);
    assert.throws(() => checkSignerGranted(planOf({}), token(['legal'])), SignerNotGrantedError);
    assert.doesNotThrow(() => checkSignerGranted(planOf({}), token(['default'])));
  });

  it('refuses signature with protection, naming both', () => {
    const fields = fieldsOf(PdfRequestSchema, { page, pdf: { signature: {}, protection: { userPassword: 'secret-1' } } });
    assert.deepEqual(Object.keys(fields).sort(), ['pdf.protection', 'pdf.signature']);
  });

  it('checks the appearance: page 0, text with image, a rectangle of no size', () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    const fields = fieldsOf(PdfRequestSchema, { page, pdf: { signature: { appearance: { page: 0, x: 0, y: 0, width: 0, height: 10, text: 'a' } } } });
    assert.deepEqual(Object.keys(fields).sort(), ['pdf.signature.appearance.page', 'pdf.signature.appearance.width']);
    const both = fieldsOf(PdfRequestSchema, { page, pdf: { signature: { appearance: { page: 1, x: 0, y: 0, width: 10, height: 10, text: 'a', image: png } } } });
    assert.deepEqual(Object.keys(both).sort(), ['pdf.signature.appearance.image', 'pdf.signature.appearance.text']);
  });

  it('signs a merge once, in its top-level pdf: a part may not ask', () => {
    const fields = fieldsOf(MergeRequestSchema, { parts: [{ page, pdf: { signature: {} } }] });
    assert.match(String(fields['parts.0.pdf.signature']), /merged file/);
    assert.deepEqual(fieldsOf(MergeRequestSchema, { parts: [{ page }], pdf: { signature: { certify: 'noChanges' } } }), {});
  });

  it('reads SIGNERS without repeating its values in a problem', () => {
    assert.throws(() => readSigningConfig('{"default":{"kind":"kms","keyId":"arn:aws:kms:eu-west-1:111122223333:key/secret-id","chain":"nowhere"}}', ''), (error: Error) => {
      assert.match(error.message, /SIGNERS is invalid/);
      assert.doesNotMatch(error.message, /secret-id/);
      return true;
    });
    assert.throws(() => readSigningConfig('not json', ''), /SIGNERS must be a JSON object/);
  });
});
