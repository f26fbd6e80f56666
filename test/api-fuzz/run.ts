/**
 * `npm run test:api-fuzz [-- st run options]`: Schemathesis, an independent
 * fuzzer, against the whole local service as `npm start` runs it. It reads
 * GET /v1/openapi.json, sends every operation a bounded number of generated
 * requests, then stateful chains along the document's links
 * (schemathesis.toml beside this file), and checks each answer with every
 * check: no 5xx, the status, content type, headers and body that the
 * document declares, refusal of what it forbids, and acceptance of what it
 * allows but for the rules JSON Schema cannot state (hooks.py names each).
 * It joins the project's own fast-check fuzzing (test/unit/fuzz), which stays.
 *
 * Schemathesis comes from PyPI, pinned, into `.cache/schemathesis` (a venv,
 * ignored by git) on the first run. The service gets a local receiver for the
 * URLs it would fetch or call (see hooks.py), through ALLOW_PRIVATE_HOSTS.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startService } from '../helpers/service.js';

const SCHEMATHESIS_VERSION = '4.32.5';
const root = fileURLToPath(new URL('../..', import.meta.url));
const venv = join(root, '.cache', 'schemathesis');
const st = join(venv, 'bin', 'st');

/** Creates the venv and installs the pinned Schemathesis unless it is there already. */
function ensureSchemathesis(): void {
  const installed = existsSync(st) ? spawnSync(st, ['--version'], { encoding: 'utf8' }).stdout : '';
  if (installed.includes(SCHEMATHESIS_VERSION)) return;
  console.log(`== installing schemathesis ${SCHEMATHESIS_VERSION} into .cache/schemathesis`);
  for (const [command, args] of [
    ['python3', ['-m', 'venv', venv]],
    [join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', `schemathesis==${SCHEMATHESIS_VERSION}`]],
  ] as const) {
    const result = spawnSync(command, args, { stdio: 'inherit' });
    if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal})`);
  }
}

/**
 * Stands in for the public pages, upload targets and webhook receivers the
 * machine cannot reach: a small HTML page for GET (a JSON object at
 * /templateDataUrl, where a page's data by reference is read), 200 for anything else.
 */
async function startReceiver(): Promise<{ origin: string; server: Server }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.method === 'GET' && request.url === '/templateDataUrl') {
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"customer":"fuzz"}');
      } else if (request.method === 'GET') {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end('<!doctype html><title>fuzz</title><h1>A page for the fuzzer</h1>');
      } else {
        response.writeHead(200).end();
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

ensureSchemathesis();
const receiver = await startReceiver();
const service = await startService();
let exitCode = 1;
try {
  console.log(`== schemathesis against ${service.baseUrl}/v1/openapi.json`);
  const child = spawn(
    st,
    ['--config-file', join(root, 'test/api-fuzz/schemathesis.toml'), 'run', `${service.baseUrl}/v1/openapi.json`, ...process.argv.slice(2)],
    {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, API_FUZZ_TOKEN: service.token, API_FUZZ_RECEIVER: receiver.origin, NO_COLOR: '1' },
    },
  );
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  exitCode = code ?? 1;
  if (signal) console.error(`schemathesis ended by ${signal}`);
} finally {
  await service.stop();
  receiver.server.close();
}
process.exit(exitCode);
