import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertContractAnswer, buildFuzzStack } from './fuzz-stack.js';

// What the fuzz runs found, kept as plain examples so each stays fixed whatever seed a run draws.
const b64 = (text: string) => Buffer.from(text).toString('base64');
const fieldsOf = (body: unknown) => (JSON.parse(String(body)) as { fields: Record<string, string> }).fields;

describe('requests the fuzzer found answered wrongly', () => {
  const { call } = buildFuzzStack();

  it('names a `__proto__` key as an unknown field instead of answering 400 with empty fields', async () => {
    // Act
    const result = await call('pdf', '{"__proto__":{"polluted":1},"page":{"html":"PHA+eDwvcD4="}}');

    // Assess
    assertContractAnswer(result, 'pdf');
    assert.equal(result.statusCode, 400);
    assert.equal(fieldsOf(result.body)['__proto__'], 'Unknown field');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('answers 400 on page.templateData nested thousands deep on a template render (the merge overflowed the stack: 500)', async () => {
    // Prepare
    const deep = `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`;

    for (const endpoint of ['template', 'pdf'] as const) {
      // Act
      const result = await call(endpoint, `{"page":{"templateData":${deep}${endpoint === 'pdf' ? `,"htmlTemplate":"${b64('{{a}}')}"` : ''}}}`);

      // Assess
      assertContractAnswer(result, endpoint);
      assert.match(fieldsOf(result.body)['page.templateData'] ?? '', /nested deeper than 100 levels/, endpoint);
    }
  });

  it('refuses a template whose stored templateData is nested too deep to ever render', async () => {
    // Act
    const result = await call('templates', JSON.stringify({ name: 't', variables: { page: { htmlTemplate: b64('{{a}}'), templateData: JSON.parse(`${'{"a":'.repeat(150)}1${'}'.repeat(150)}`) } } }));

    // Assess
    assert.equal(result.statusCode, 400);
    assert.match(fieldsOf(result.body)['variables.page.templateData'] ?? '', /nested deeper/);
  });

  it('answers 400 on a webhook or page header value beyond U+00FF, which Node\'s HTTP client throws on', async () => {
    // Act
    const hook = await call('pdf/async', JSON.stringify({ page: { html: b64('<p>x</p>') }, webhook: { url: 'https://hooks.example.com/', headers: { 'X-Mark': 'done ✓' } } }));
    const page = await call('pdf', JSON.stringify({ page: { html: b64('<p>x</p>'), headers: { 'X-Mark': '\u{1F600}' } } }));
    const latin1 = await call('pdf', JSON.stringify({ page: { html: b64('<p>x</p>'), headers: { 'X-Name': 'Müller' } } }));

    // Assess
    assert.match(fieldsOf(hook.body)['webhook.headers.X-Mark'] ?? '', /beyond U\+00FF/);
    assert.match(fieldsOf(page.body)['page.headers.X-Mark'] ?? '', /beyond U\+00FF/);
    assert.equal(latin1.statusCode, 200);
  });
});
