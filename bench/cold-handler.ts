/**
 * Cold start of the service's PDF function, run as a fresh process from a
 * bundle as Lambda runs it: loading the bundle is the function's
 * initialisation (config, clients, Chromium unpacked, launched and warmed),
 * then one `POST /v1/pdf` event goes through the whole handler (auth,
 * validation, render). Reports its phases to the parent over IPC, in
 * milliseconds since the process started, and the CPU time spent by the PDF.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { SMALL_HTML } from './pages.js';
import { processTree } from '../scripts/local-runtime/process-tree.js';
import { treeCpuMs } from './process-memory.js';

/** CPU this process (Node, without Chromium) has used so far, ms. */
const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

// INIT phases: Chromium's process started (the first child process), then the module (INIT) done; each with
// the Node CPU used by then (`…Cpu`), which is what tells the modules' cost apart under the CPU share.
let spawned = Number.NaN;
let spawnedCpu = Number.NaN;
subscribe('child_process', () => {
  if (!Number.isNaN(spawned)) return;
  spawned = performance.now();
  spawnedCpu = ownCpuMs();
});
// Imported here, not statically, so that the subscription above sees the launch.
const { handler } = await import('../functions/pdf.js');
const { renderDeps } = await import('../lib/bootstrap/rendering-handler.js');
const loaded = performance.now();
const loadedCpu = ownCpuMs();
// INIT is over: the parent hands the invocation to the extensions, as Lambda does when the runtime asks for it.
process.send?.({ init: true });
const COLD_REQUEST_ID = 'cold-start';
const body = JSON.stringify({ page: { html: Buffer.from(SMALL_HTML).toString('base64') } });
const now = new Date();
const event: APIGatewayProxyEventV2 = {
  version: '2.0',
  routeKey: 'POST /v1/pdf',
  rawPath: '/v1/pdf',
  rawQueryString: '',
  headers: { authorization: `Bearer ${process.env.BENCH_TOKEN ?? ''}`, 'content-type': 'application/json', 'content-length': String(body.length) },
  requestContext: {
    accountId: '000000000000',
    apiId: 'bench',
    domainName: 'bench.local',
    domainPrefix: 'bench',
    http: { method: 'POST', path: '/v1/pdf', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
    requestId: COLD_REQUEST_ID,
    routeKey: 'POST /v1/pdf',
    stage: '$default',
    time: now.toISOString(),
    timeEpoch: now.getTime(),
  },
  body,
  isBase64Encoded: false,
};
const deadline = Date.now() + 30_000;
const context = {
  callbackWaitsForEmptyEventLoop: true,
  functionName: 'docrender-bench-pdf',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:docrender-bench-pdf',
  memoryLimitInMB: '1536',
  awsRequestId: COLD_REQUEST_ID,
  logGroupName: '/aws/lambda/docrender-bench-pdf',
  logStreamName: 'bench',
  getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
} satisfies Context;

const result = (await handler(event, context)) as { statusCode: number; body?: string } | undefined;
const rendered = performance.now();
// CPU spent to the PDF: what the CPU share turns into time. This process's own, then with Chromium's.
const nodeCpuMs = ownCpuMs();
const cpuMs = treeCpuMs(processTree(process.pid));
// The steps of INIT that lib/bootstrap/renderer-init.ts marks: app (SDK clients, stores, logger) loaded, endpoint loaded, browser
// warm; each with the Node CPU used by then (the mark's detail).
const marks = Object.fromEntries(
  (performance.getEntriesByType('mark') as PerformanceMark[])
    .filter((entry) => entry.name.startsWith('docrender.'))
    .flatMap((entry) => {
      const name = entry.name.slice('docrender.'.length);
      const cpu = (entry.detail as { cpuMs?: number } | null)?.cpuMs;
      return [[name, entry.startTime], ...(cpu === undefined ? [] : [[`${name}Cpu`, cpu]])];
    }),
);
process.send?.({
  phases: { chromiumSpawned: spawned, chromiumSpawnedCpu: spawnedCpu, ...marks, initDone: loaded, initDoneCpu: loadedCpu, rendered, nodeCpuMs, cpuMs },
  status: result?.statusCode ?? 0,
  bytes: result?.body ? Buffer.byteLength(result.body, 'base64') : 0,
  error: result && result.statusCode !== 200 ? result.body : undefined,
});
await (await renderDeps()).renderer.close();
process.exit(0);
