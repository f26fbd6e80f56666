import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runSmoke, type SmokeResult } from '../../scripts/smoke.js';
import { startService, type RunningService } from '../helpers/service.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('npm run smoke', () => {
  let service: RunningService;
  let site: Server;
  let siteUrl: string;
  let receiver: Server;
  let webhookUrl: string;
  const webhookBodies: string[] = [];

  before(async () => {
    // A page with an origin for the cookie check, and a webhook receiver, both reachable by the local service.
    site = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>smoke site</title><p>site</p>');
    });
    siteUrl = `${await listen(site)}/page`;
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        webhookBodies.push(body);
        res.writeHead(200).end();
      });
    });
    webhookUrl = `${await listen(receiver)}/hook`;
    service = await startService({ WEBHOOK_RETRY_DELAYS: '1,1' });
  });

  after(async () => {
    await service?.stop();
    site?.close();
    receiver?.close();
  });

  it('passes every check against a working deployment', async () => {
    // Act
    const results: SmokeResult[] = await runSmoke({ baseUrl: service.baseUrl, token: service.token, siteUrl, webhookUrl, timeoutMs: 60_000 });
    // Assess
    const failed = results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.detail}`);
    assert.deepEqual(failed, [], service.output().slice(-3000));
    assert.deepEqual(
      results.map((r) => r.name),
      ['raw PDF', 'raw screenshot', 'sync PDF', 'async PDF, job and webhook', 'template', 'isolation between renders'],
    );
    assert.equal(webhookBodies.length, 1, 'the webhook was called once');
    assert.equal((JSON.parse(webhookBodies[0] ?? '{}') as { status?: string }).status, 'COMPLETED');
  });

  it('prints what failed and exits non-zero when the deployment refuses it', async () => {
    // Act: a token the deployment does not know
    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/smoke.ts', service.baseUrl, 'dr_not-a-real-token-0000000000', '--site', siteUrl], {
      cwd: root,
    });
    const error = (await run.then(() => undefined, (e: unknown) => e)) as { code?: number; stdout?: string } | undefined;
    // Assess
    assert.equal(error?.code, 1);
    assert.match(error?.stdout ?? '', /✘ raw PDF .*401/);
    assert.match(error?.stdout ?? '', /^0 passed, 6 failed$/m);
  });
});
