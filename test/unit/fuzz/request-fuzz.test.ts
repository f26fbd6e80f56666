import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import fc from 'fast-check';
import {
  type FuzzEndpoint,
  handlebarsRequest,
  mutatedRequest,
  oddUrl,
  rawBody,
  schemaShaped,
  validRequests,
} from './arbitraries.js';
import { assertContractAnswer, buildFuzzStack } from './fuzz-stack.js';

const ENDPOINTS = Object.keys(validRequests) as FuzzEndpoint[];
/** A run that does not settle within this is a hang (a generous bound: a run takes about a millisecond). */
const HANG_MS = 10_000;
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const settings = (numRuns: number) => ({ numRuns, seed: SEED, timeout: HANG_MS, endOnFailure: true, includeErrorInReport: true });

describe('fuzzed requests against the real middleware stack and schemas', () => {
  const { call } = buildFuzzStack();

  it('answers every valid starting request with a success', async () => {
    for (const endpoint of ENDPOINTS) {
      // Act
      const result = await call(endpoint, JSON.stringify(validRequests[endpoint]));

      // Assess: the mutations below start from requests that really pass.
      assert.ok(result.statusCode === 200 || result.statusCode === 201, `${endpoint}: ${result.statusCode} ${String(result.body)}`);
    }
  });

  it(`never answers 5xx or off-contract to schema-shaped bodies of any type (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENDPOINTS), schemaShaped, async (endpoint, body) => {
        // Act
        const result = await call(endpoint, JSON.stringify(body) ?? 'undefined');

        // Assess
        assertContractAnswer(result, endpoint);
      }),
      settings(1500),
    );
  });

  it(`never answers 5xx or off-contract to mutations of valid requests (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ENDPOINTS).chain((endpoint) => fc.tuple(fc.constant(endpoint), mutatedRequest(endpoint))),
        async ([endpoint, body]) => {
          // Act
          const result = await call(endpoint, JSON.stringify(body));

          // Assess
          assertContractAnswer(result, endpoint);
        },
      ),
      settings(3000),
    );
  });

  it(`never answers 5xx to raw JSON texts: duplicate keys, 1e999, lone surrogates, deep nesting, garbage (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ENDPOINTS).chain((endpoint) => fc.tuple(fc.constant(endpoint), rawBody(endpoint))),
        async ([endpoint, body]) => {
          // Act
          const result = await call(endpoint, body);

          // Assess
          assertContractAnswer(result, endpoint);
        },
      ),
      settings(1000),
    );
  });

  it(`never answers 5xx to random Handlebars templates and data (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(handlebarsRequest, async (body) => {
        // Act
        const result = await call('pdf', JSON.stringify(body));

        // Assess
        assertContractAnswer(result, 'pdf');
      }),
      settings(2000),
    );
  });
});

/** What Node's HTTP client does with a URL before any byte is sent: a throw here was a 500 at upload or webhook time. */
function nodeClientAccepts(url: string): void {
  urlToHttpOptions(new URL(url));
  const refuse: LookupFunction = (_host, _options, callback) => callback(Object.assign(new Error('not looked up in tests'), { code: 'ENOTFOUND' }), '', 4);
  const client = new URL(url).protocol === 'https:' ? https : http;
  const request = client.request(new URL(url), { method: 'PUT', agent: false, lookup: refuse });
  request.on('error', () => undefined);
  request.destroy();
}

describe('fuzzed URLs in every URL field', () => {
  const { call } = buildFuzzStack();

  it(`refuses up front (400 on the field) every URL Node's HTTP client would throw on, and never answers 5xx (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(oddUrl, fc.constantFrom('storage.preSignedUrl', 'webhook.url', 'page.url', 'screenshot.overlay.background'), async (url, field) => {
        // Prepare
        const base = field.startsWith('screenshot') ? validRequests['screenshot/async'] : validRequests['pdf/async'];
        const endpoint: FuzzEndpoint = field.startsWith('screenshot') ? 'screenshot/async' : 'pdf/async';
        const body = structuredClone(base) as Record<string, Record<string, unknown>>;
        if (field === 'storage.preSignedUrl') body.storage = { preSignedUrl: url };
        if (field === 'webhook.url') body.webhook = { url };
        if (field === 'page.url') body.page = { url };
        if (field === 'screenshot.overlay.background') body.screenshot = { overlay: { background: url } };

        // Act
        const result = await call(endpoint, JSON.stringify(body));

        // Assess
        assertContractAnswer(result, `${field}=${JSON.stringify(url)}`);
        if (result.statusCode === 400) {
          const fields = (JSON.parse(String(result.body)) as { fields: Record<string, string> }).fields;
          assert.ok(Object.keys(fields).some((name) => name === field || name.startsWith(`${field}.`)), `${JSON.stringify(url)}: ${JSON.stringify(fields)}`);
        } else if (field !== 'screenshot.overlay.background' || /^\s*https?:/i.test(url)) {
          // Accepted: the HTTP client must take it as it is (trimmed, as the schema stores it).
          assert.doesNotThrow(() => nodeClientAccepts(url.trim()), `${field}=${JSON.stringify(url)} passed validation but Node's client throws on it`);
        }
      }),
      settings(4000),
    );
  });
});

describe('fuzzed header values', () => {
  const { call } = buildFuzzStack();

  it(`accepts a webhook header value only when Node's HTTP client can send it (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 12 }), async (value) => {
        // Prepare
        const body = { ...validRequests['pdf/async'], webhook: { url: 'https://hooks.example.com/', headers: { 'X-Fuzz': value } } };

        // Act
        const result = await call('pdf/async', JSON.stringify(body));

        // Assess
        assertContractAnswer(result, `X-Fuzz=${JSON.stringify(value)}`);
        if (result.statusCode === 201) assert.doesNotThrow(() => http.validateHeaderValue('x-fuzz', value), JSON.stringify(value));
        else assert.ok('webhook.headers.X-Fuzz' in (JSON.parse(String(result.body)) as { fields: object }).fields);
      }),
      settings(1000),
    );
  });
});

describe('fuzzed path and query parameters', () => {
  const { call } = buildFuzzStack();
  const param = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.constantFrom('', '0', '-1', '1e999', '99999999999999999999', '1.5', ' 2', '0x10', 'NaN', 'Infinity', '../../etc/passwd', '%00', 'tpl_', 'job_', `tpl_${'0'.repeat(26)}`, 'x'.repeat(5000), '__proto__'),
  );

  it(`never answers 5xx or off-contract to odd ids and page numbers (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('templates/get', 'templates/delete', 'jobs/get', 'templates/list', 'template', 'templates/update') , param, async (endpoint, value) => {
        // Act
        const result = endpoint === 'templates/list'
          ? await call(endpoint, undefined, { queryStringParameters: { page: value } })
          : await call(endpoint, endpoint === 'template' || endpoint === 'templates/update' ? '{"name":"x"}' : undefined, { pathParameters: { id: value } });

        // Assess
        assertContractAnswer(result, `${endpoint} ${JSON.stringify(value)}`);
      }),
      settings(1000),
    );
  });
});
