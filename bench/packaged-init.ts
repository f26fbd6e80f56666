/**
 * `npx tsx bench/packaged-init.ts [--rounds N] [--functions a,b] DIR [DIR…]`:
 * the INIT of functions as packaged, read from the local runtime's REPORT
 * lines. Each DIR is the output of `npm run package -- --package DIR`; each
 * function's zip is unpacked (under .cache/packaged-init, inside the project
 * so the runtime's TypeScript loader resolves) and run by the local runtime
 * (scripts/local-runtime/lambda-runtime.ts) as Lambda would: a new instance per round,
 * one invocation (an unauthenticated request, answered 401), its REPORT line
 * kept. `npm start` runs the sources instead (tsx); this runs the bundles
 * Lambda gets. The DIRs take turns in every round, so a busy machine slows
 * them alike. Renderers get the layer as `npm start` gives it, with Chromium's
 * launch (part of their INIT) included.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createLambdaRuntime } from '../scripts/local-runtime/lambda-runtime.js';
import { LOCAL_ACCOUNT_ID, startLocalAws } from '../scripts/local-runtime/local-aws.js';
import { extractZip } from '../test/deploy/zip-archive.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '5' }, functions: { type: 'string', default: 'template-get,usage,pdf' } },
});
const rounds = Number(values.rounds);
const keys = values.functions.split(',');
if (positionals.length === 0) throw new Error('usage: tsx bench/packaged-init.ts [--rounds N] [--functions a,b] DIR [DIR…]');

const aws = await startLocalAws();
const results: Record<string, Record<string, number[]>> = {};
try {
  const unpackRoot = join(root, '.cache', 'packaged-init');
  rmSync(unpackRoot, { recursive: true, force: true });
  for (const key of keys) {
    const fn = aws.service.functions.find((candidate) => candidate.key === key);
    if (!fn) throw new Error(`no function ${key} in serverless.yml`);
    const route = fn.httpRoutes[0];
    for (const [index, dir] of positionals.entries()) {
      const serviceDir = join(unpackRoot, String(index), key);
      mkdirSync(serviceDir, { recursive: true });
      extractZip(join(dir, `${key}.zip`), serviceDir);
    }
    for (let round = 0; round < rounds; round += 1) {
      for (const [index, dir] of positionals.entries()) {
        const reports: string[] = [];
        const runtime = createLambdaRuntime({
          serviceDir: join(unpackRoot, String(index), key),
          region: aws.service.region,
          accountId: LOCAL_ACCOUNT_ID,
          environmentOf: (target) => aws.environmentOf(target),
          logReport: (line) => reports.push(line),
        });
        try {
          const invocation = await runtime.invoke(fn, apiEvent(route ? `${route.method} ${route.path}` : key));
          await invocation.ended;
        } finally {
          await runtime.stop();
        }
        const init = /Init Duration: ([\d.]+) ms/.exec(reports.join('\n'))?.[1];
        if (init === undefined) throw new Error(`${key}: no Init Duration in ${reports.join(' | ')}`);
        ((results[key] ??= {})[dir] ??= []).push(Number(init));
        console.error(`${key} ${dir} round ${round + 1}: INIT ${init} ms`);
      }
    }
  }
} finally {
  await aws.stop();
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? NaN;
console.log(`| Function | ${positionals.join(' | ')} |`);
console.log(`| --- |${positionals.map(() => ' ---: |').join('')}`);
for (const [key, byDir] of Object.entries(results)) {
  console.log(`| ${key} | ${positionals.map((dir) => `${median(byDir[dir] ?? []).toFixed(0)} (${(byDir[dir] ?? []).map((ms) => ms.toFixed(0)).join(', ')})`).join(' | ')} |`);
}

/** An HTTP API request without a token: every HTTP function answers it 401 after its INIT. */
function apiEvent(label: string) {
  const now = new Date();
  return {
    version: '2.0',
    routeKey: label,
    rawPath: '/',
    rawQueryString: '',
    headers: {},
    requestContext: {
      accountId: LOCAL_ACCOUNT_ID,
      apiId: 'packaged-init',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method: 'GET', path: '/', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'packaged-init' },
      requestId: `init-${now.getTime()}`,
      routeKey: label,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: false,
  };
}
