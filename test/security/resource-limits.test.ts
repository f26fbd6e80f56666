import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readImage } from '../helpers/documents.js';
import type { RunningService } from '../helpers/service.js';
import { type AttackerSite, b64, errorOf, page, startAttackerSite, startSecuredService } from './attack-fixtures.js';

/** Every file under a directory with its size (directories that vanish mid-walk are skipped). */
function filesUnder(dir: string): Map<string, number> {
  const files = new Map<string, number>();
  const walk = (current: string) => {
    let entries: string[];
    try {
      entries = readdirSync(current);
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(current, entry);
      try {
        const stat = statSync(path);
        if (stat.isDirectory()) walk(path);
        else files.set(path, stat.size);
      } catch {
        // gone meanwhile
      }
    }
  };
  walk(dir);
  return files;
}

/** Pids of every process descended from `root`, read from /proc. */
function descendants(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // exited meanwhile
    }
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    for (const [child, parent] of parents) {
      if (parent === pid) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

const RENDER_BUDGET_MS = 8_000;
const simple = { page: { html: b64('<p>still working</p>') } };

describe('security › resource limits', () => {
  let service: RunningService;
  let site: AttackerSite;
  const serviceTmp = mkdtempSync(join(tmpdir(), 'docrender-security-tmp-'));

  before(async () => {
    site = await startAttackerSite({
      '/download': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="payload.bin"' });
        res.end(Buffer.alloc(1024 * 1024, 1));
      },
      '/download-link': page('<p>download</p><a id="d" href="/download" download>d</a><script>document.getElementById("d").click();</script>'),
    });
    try {
      // Let the suite see core-dump limits at work: raise our own soft limit, which the service inherits.
      execFileSync('prlimit', ['--pid', String(process.pid), '--core=unlimited:']);
    } catch {
      // No prlimit: the core-dump test then shows only what the machine already enforces.
    }
    // HOME too: Chromium's default download folder is ~/Downloads.
    service = await startSecuredService({ RENDER_TIMEOUT_MS: String(RENDER_BUDGET_MS), TMPDIR: serviceTmp, HOME: serviceTmp });
  });

  after(async () => {
    await service?.stop();
    await site?.close();
    rmSync(serviceTmp, { recursive: true, force: true });
  });

  const renderStillWorks = async () => {
    const res = await service.request('/v1/pdf', { json: simple });
    assert.equal(res.status, 200, 'the next render works');
    assert.equal(res.headers.get('content-type'), 'application/pdf');
  };

  it('ends a page that loops forever within its budget with 504, and the next render works', { timeout: 60_000 }, async () => {
    // Act
    const res = await service.request('/v1/pdf', { json: { page: { html: b64('<p>x</p><script>while (true) {}</script>') } } });

    // Assess
    assert.equal(res.status, 504);
    assert.equal(typeof (await errorOf(res)).message, 'string');
    await renderStillWorks();
  });

  const popups = `<p>popups</p><a id="a" href="about:blank" target="_blank">a</a><script>
      for (let i = 0; i < 200; i++) { window.open('about:blank', 'w' + i); }
      for (let i = 0; i < 20; i++) document.getElementById('a').click();
    </script>`;

  it('ends a page that opens popups without end within its budget, and the next render works', { timeout: 60_000 }, async () => {
    // Act
    const res = await service.request('/v1/screenshot', { json: { page: { html: b64(popups) } } });

    // Assess
    assert.ok(res.status === 200 || res.status === 504, `status ${res.status}`);
    await renderStillWorks();
  });

  it('renders a page that opens popups without end', { timeout: 60_000 }, async () => {
    // Act
    const res = await service.request('/v1/screenshot', { json: { page: { html: b64(popups) } } });

    // Assess
    assert.equal(res.status, 200);
  });

  it('renders a page that raises dialogs without end, and the next render works', { timeout: 60_000 }, async () => {
    // Prepare
    const markup = '<p>dialogs</p><script>for (let i = 0; i < 50; i++) { alert(i); confirm(i); prompt(i); } window.onbeforeunload = () => "stay";</script>';

    // Act
    const res = await service.request('/v1/pdf', { json: { page: { html: b64(markup) } } });

    // Assess
    assert.equal(res.status, 200);
    await renderStillWorks();
  });

  it('answers a download with 400 on page.url, writes nothing, and the next render works', { timeout: 60_000 }, async () => {
    // Prepare
    const before = filesUnder(serviceTmp);

    // Act
    const direct = await service.request('/v1/pdf', { json: { page: { url: `${site.url}/download` } } });
    const clicked = await service.request('/v1/pdf', { json: { page: { url: `${site.url}/download-link`, waitForMilliseconds: 500 } } });

    // Assess
    assert.equal(direct.status, 400);
    assert.equal(typeof (await errorOf(direct)).fields?.['page.url'], 'string');
    assert.equal(clicked.status, 200);
    const written = [...filesUnder(serviceTmp).keys()].filter((path) => !before.has(path) && /payload/.test(path));
    assert.deepEqual(written, []);
    await renderStillWorks();
  });

  it('bounds a full-page shot of a 300000 px tall page', { timeout: 60_000 }, async () => {
    // Act
    const res = await service.request('/v1/screenshot', {
      json: { page: { html: b64('<body style="margin:0"><div style="height:300000px;background:linear-gradient(red,blue)">tall</div></body>') }, screenshot: { fullPage: true, viewport: { width: 400, height: 300, deviceScaleFactor: 1 } } },
    });

    // Assess
    if (res.status === 200) {
      const image = readImage(new Uint8Array(await res.arrayBuffer()));
      assert.ok(image.height <= 16_384, `height ${image.height}`);
    } else {
      assert.equal(res.status, 400);
      assert.equal(typeof (await errorOf(res)).message, 'string');
    }
    await renderStillWorks();
  });

  it('does not grow the temporary directory across renders', { timeout: 120_000 }, async () => {
    // Prepare: one render of each kind first, so that what a warm browser keeps exists already.
    const bodies = [
      ['/v1/pdf', { page: { html: b64('<p>pdf</p><script>localStorage.setItem("k", "x".repeat(100000))</script>') } }],
      ['/v1/screenshot', { page: { html: b64('<p>shot</p>') }, screenshot: { type: 'jpeg', quality: 50 } }],
      ['/v1/screenshot', { page: { url: `${site.url}/download-link` } }],
    ] as const;
    for (const [path, body] of bodies) await service.request(path, { json: body });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const before = filesUnder(serviceTmp);
    const bytesBefore = [...before.values()].reduce((a, b) => a + b, 0);

    // Act
    for (let round = 0; round < 3; round += 1) {
      for (const [path, body] of bodies) await service.request(path, { json: body });
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));

    // Assess
    const after = filesUnder(serviceTmp);
    const bytesAfter = [...after.values()].reduce((a, b) => a + b, 0);
    const added = [...after.keys()].filter((path) => !before.has(path));
    assert.ok(added.length <= 2, `files added: ${added.join(', ')}`);
    assert.ok(bytesAfter - bytesBefore < 1024 * 1024, `grew by ${bytesAfter - bytesBefore} bytes`);
  });

  it('runs Chromium with core dumps off although the service may dump core', async (t) => {
    // Prepare
    await service.request('/v1/pdf', { json: simple });
    const coreLimit = (pid: number) => /^Max core file size\s+(\S+)/m.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'))?.[1];
    const processes = descendants(process.pid).flatMap((pid) => {
      try {
        return [{ chromium: /chrom/i.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8')), limit: coreLimit(pid) }];
      } catch {
        return [];
      }
    });
    if (processes.filter((p) => !p.chromium).every((p) => p.limit === '0')) {
      t.skip('this machine forbids core dumps to the service already: nothing to show');
      return;
    }

    // Act
    const limits = processes.filter((p) => p.chromium).map((p) => p.limit);

    // Assess
    assert.ok(limits.length > 0, 'Chromium processes found');
    assert.deepEqual([...new Set(limits)], ['0']);
  });
});
