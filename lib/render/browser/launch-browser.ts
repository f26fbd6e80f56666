import { accessSync, constants, readdirSync, readFileSync, rmSync } from 'node:fs';
import { chmod, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser } from 'puppeteer-core';
import { RenderError } from '../../errors.js';
import { type ProcessIdentity, rememberProcess, signalGroup } from '../../process/process-identity.js';
import type { EgressProxy } from '../../net/index.js';
import { unpackChromium } from './chromium-pack.js';
import { chromiumArgs } from './launch-args.js';
import { noteLaunchRetry } from './launch-retries.js';
import { scratchPrefix, sweepScratchOnce } from './scratch-dirs.js';
import type { ChromiumMode } from '../types.js';

/** A running Chromium this process launched, with what it takes to get rid of it. */
export type LaunchedBrowser = {
  browser: Browser;
  mode: ChromiumMode;
  /** The user agent pages get unless a device preset brings its own ("HeadlessChrome" is widely blocked). */
  userAgent: string;
  /** The filtering proxy every request of this browser goes through. */
  egress: EgressProxy;
  /** Kills the process tree at once and then deletes its profile directory; safe to call twice. */
  kill(): void;
  /** Resolves once the process is gone and its profile directory deleted. */
  gone: Promise<void>;
};

let unpacked: Promise<string> | undefined;

/**
 * Profile directories of browsers still alive (with the browser's process),
 * and launchers; removed synchronously when this process exits, after their
 * browsers are killed: a stop that signals every process at once (systemd,
 * a container runtime) reaches Chromium too, and a Chromium shutting down
 * writes into its profile (its session storage) after a removal that did not
 * wait for it. A profile stays listed until its removal is done, after its
 * browser has gone: by then the pid may be another's, hence the identity.
 */
const liveScratch = new Map<string, ProcessIdentity | undefined>();
let exitHookInstalled = false;

function trackScratch(dir: string, browser?: ProcessIdentity): void {
  liveScratch.set(dir, browser);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    const killed = [...liveScratch.values()].filter((browser) => browser !== undefined && killGroup(browser)) as ProcessIdentity[];
    waitGroupsGone(
      killed.map(({ pid }) => pid),
      EXIT_KILL_WAIT_MS,
    );
    for (const dir of liveScratch.keys()) rmSync(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 20 });
  });
}

/** How long this process's exit waits for its killed browsers to be gone before removing their profiles anyway. */
const EXIT_KILL_WAIT_MS = 2_000;

/**
 * Kills a browser and its helpers (puppeteer starts Chromium detached, as the
 * leader of its own process group), only while its pid is still that
 * browser's: answers whether it was killed.
 */
export function killGroup(browser: ProcessIdentity): boolean {
  return signalGroup(browser, 'SIGKILL');
}

/**
 * Blocks until no live process (zombies count as gone) is left in these
 * process groups, or `limitMs` has passed: an exit hook cannot wait
 * asynchronously. Read from /proc; without it (macOS) only the limit's first
 * pause is taken.
 */
function waitGroupsGone(groups: number[], limitMs: number): void {
  if (groups.length === 0) return;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + limitMs;
  const wanted = new Set(groups);
  while (Date.now() < deadline) {
    let names: string[];
    try {
      names = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
    } catch {
      Atomics.wait(pause, 0, 0, 50);
      return;
    }
    const left = names.some((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return fields[0] !== 'Z' && fields[0] !== 'X' && wanted.has(Number(fields[2]));
      } catch {
        return false;
      }
    });
    if (!left) return;
    Atomics.wait(pause, 0, 0, 10);
  }
}

/** The bundled Chromium, unpacked to /tmp once per container (from the layer's pack when there is one). */
function bundledExecutable(packDir: string | undefined): Promise<string> {
  unpacked ??= unpackChromium(packDir).catch((error: unknown) => {
    unpacked = undefined;
    throw error;
  });
  return unpacked;
}

const SHELL = '/bin/sh';
/** Per executable: its launcher being made, then the path made (the executable itself when none could be). */
const launchers = new Map<string, { ready: Promise<string>; path?: string }>();

/**
 * A tiny launcher that turns core dumps off (RLIMIT_CORE 0) and then becomes
 * Chromium (`exec`: same pid, same pipes), so a crashing renderer never writes
 * a dump of page memory (cookies, credentials, other renders' pixels) to disk.
 * Written once per executable into the temporary directory; without a shell
 * (a stripped image) or where it cannot be written or run (a noexec /tmp),
 * Chromium is started directly, with the limit it inherits. A launcher whose
 * folder is gone (removed from /tmp by someone else's sweep) is written again:
 * spawning the missing file would fail every launch after it in milliseconds.
 */
function coreDumpsOff(executablePath: string): Promise<string> {
  try {
    accessSync(SHELL, constants.X_OK);
  } catch {
    return Promise.resolve(executablePath);
  }
  const known = launchers.get(executablePath);
  if (known && (known.path === undefined || known.path === executablePath || runnable(known.path))) return known.ready;
  const made: { ready: Promise<string>; path?: string } = {
    ready: (async () => {
      sweepScratchOnce();
      const dir = await mkdtemp(scratchPrefix('launcher'));
      trackScratch(dir);
      const path = join(dir, 'chromium');
      const quoted = `'${executablePath.replaceAll("'", `'\\''`)}'`;
      await writeFile(`${path}.tmp`, `#!${SHELL}\nulimit -c 0\nexec ${quoted} "$@"\n`, { mode: 0o700 });
      await chmod(`${path}.tmp`, 0o700);
      await rename(`${path}.tmp`, path);
      // A temporary directory mounted noexec: the launcher could not run.
      accessSync(path, constants.X_OK);
      return path;
    })().catch(() => executablePath),
  };
  void made.ready.then((path) => (made.path = path));
  launchers.set(executablePath, made);
  return made.ready;
}

function runnable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Launches Chromium for rendering untrusted pages: behind the egress proxy
 * (every request, loopback included), with core dumps off, and with a fresh
 * profile directory under /tmp that is deleted when the browser goes away,
 * so /tmp does not fill up across warm invocations.
 */
export async function launchBrowser(options: {
  mode: ChromiumMode;
  executablePath?: string;
  /** The Chromium layer's zstd pack (`unpackChromium`); without one, `@sparticuz/chromium` unpacks its own. */
  chromiumPackDir?: string;
  egress: EgressProxy;
}): Promise<LaunchedBrowser> {
  const chromiumPath = options.executablePath ?? (await bundledExecutable(options.chromiumPackDir));
  sweepScratchOnce();
  const userDataDir = await mkdtemp(scratchPrefix('chromium'));
  let browser: Browser;
  try {
    browser = await launchWithRetries(chromiumPath, options, userDataDir);
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true }).catch(() => undefined);
    throw new RenderError(`Chromium could not be started (${launchFailure(error)})`, { cause: error });
  }
  return supervise(browser, options, userDataDir);
}

/** A launch that failed faster than this never got Chromium running: it is tried again after each of RETRY_PAUSES_MS. */
const QUICK_FAILURE_MS = 2_000;
const RETRY_PAUSES_MS = [250, 1_000];

/**
 * A launch that fails at once (not one that hung until its timeout) is tried
 * again after a pause, twice at most, with the launcher checked afresh and
 * Chromium's stderr passed through: fresh-clone CI runs met such failures
 * ("Target closed" within 20–60 ms, in different suites, each passing alone,
 * once on a retry 250 ms later too) whose cause is not found yet; the last
 * failure's reason goes into the error.
 */
async function launchWithRetries(chromiumPath: string, options: { mode: ChromiumMode; egress: EgressProxy }, userDataDir: string): Promise<Browser> {
  for (let attempt = 0; ; attempt++) {
    const started = Date.now();
    try {
      return await launchOnce(chromiumPath, options, userDataDir, { stderr: attempt > 0 });
    } catch (error) {
      const pause = RETRY_PAUSES_MS[attempt];
      if (pause === undefined || Date.now() - started > QUICK_FAILURE_MS) throw error;
      noteLaunchRetry(`attempt ${attempt + 2} of ${RETRY_PAUSES_MS.length + 1} after a quick failure (${launchFailure(error)})`);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** Why a launch failed, for the error's message: its code and the first lines of its message (Chromium's stderr), URLs left out. */
function launchFailure(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = String((error as Error | undefined)?.message ?? error)
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .slice(0, 4)
    .join(' | ')
    .replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>')
    .slice(0, 400);
  return typeof code === 'string' ? `${code}: ${message}` : message;
}

/** `stderr`: Chromium's own output goes to this process's stderr (the second try: a pipe launch does not read it, and it says why Chromium stopped). */
async function launchOnce(chromiumPath: string, options: { mode: ChromiumMode; egress: EgressProxy }, userDataDir: string, { stderr = false } = {}): Promise<Browser> {
  const executablePath = await coreDumpsOff(chromiumPath);
  return puppeteer.launch({
    dumpio: stderr,
    executablePath,
    headless: 'shell',
    args: [...chromiumArgs(chromium.args, options.mode), ...options.egress.chromiumArgs],
    userDataDir,
    // With --disable-dev-shm-usage Chromium's shared memory is files in TMPDIR, unlinked once mapped; a browser
    // killed in between leaves them behind. In the profile directory they are deleted with it.
    env: { ...process.env, TMPDIR: userDataDir },
    // A pipe dies with the process, so a killed browser is noticed at once.
    pipe: true,
    timeout: 20_000,
    // Bounded CDP calls: a hung browser must surface as an error, not hang this process.
    protocolTimeout: 60_000,
    downloadBehavior: { policy: 'deny' },
  });
}

/** The launched browser watched: its profile removed when it goes, its process group killed when it is disconnected. */
async function supervise(browser: Browser, options: { mode: ChromiumMode; egress: EgressProxy }, userDataDir: string): Promise<LaunchedBrowser> {
  const child = browser.process();
  const exited = new Promise<void>((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  // Remembered while the browser is a child not yet reaped: its pid cannot be anyone else's yet.
  const identity = child?.pid === undefined ? undefined : rememberProcess(child.pid);
  trackScratch(userDataDir, identity);
  const gone = exited
    .then(() => rm(userDataDir, { recursive: true, force: true, maxRetries: 3, retryDelay: 20 }))
    .catch(() => undefined)
    .finally(() => liveScratch.delete(userDataDir));
  // If Chromium dies on its own, its children and profile must still go.
  browser.once('disconnected', () => kill());

  function kill(): void {
    if (identity === undefined || child?.exitCode !== null || child?.signalCode !== null) return;
    killGroup(identity);
  }

  let userAgent: string;
  try {
    userAgent = (await browser.userAgent()).replace('HeadlessChrome/', 'Chrome/');
  } catch (error) {
    kill();
    throw new RenderError('Chromium started but does not answer', { cause: error });
  }
  return { browser, mode: options.mode, userAgent, egress: options.egress, kill, gone };
}
