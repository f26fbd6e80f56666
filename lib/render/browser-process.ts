import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser } from 'puppeteer-core';
import { RenderError } from '../errors.js';
import { chromiumArgs } from './launch-args.js';
import type { ChromiumMode } from './types.js';

/** A running Chromium this process launched, with what it takes to get rid of it. */
export type LaunchedBrowser = {
  browser: Browser;
  mode: ChromiumMode;
  /** The user agent pages get unless a device preset brings its own ("HeadlessChrome" is widely blocked). */
  userAgent: string;
  /** Kills the process tree at once and then deletes its profile directory; safe to call twice. */
  kill(): void;
  /** Resolves once the process is gone and its profile directory deleted. */
  gone: Promise<void>;
};

let unpacked: Promise<string> | undefined;

/** Profile directories of browsers still alive; removed synchronously if this process exits first. */
const liveProfiles = new Set<string>();
let exitHookInstalled = false;

function trackProfile(dir: string): void {
  liveProfiles.add(dir);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const profile of liveProfiles) rmSync(profile, { recursive: true, force: true });
  });
}

/** The bundled Chromium, unpacked to /tmp once per container. */
function bundledExecutable(): Promise<string> {
  unpacked ??= chromium.executablePath().catch((error: unknown) => {
    unpacked = undefined;
    throw error;
  });
  return unpacked;
}

/**
 * Launches Chromium for rendering untrusted pages, with a fresh profile
 * directory under /tmp that is deleted when the browser goes away, so /tmp
 * does not fill up across warm invocations.
 */
export async function launchBrowser(options: { mode: ChromiumMode; executablePath?: string }): Promise<LaunchedBrowser> {
  const executablePath = options.executablePath ?? (await bundledExecutable());
  const userDataDir = await mkdtemp(join(tmpdir(), 'docrender-chromium-'));
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      executablePath,
      headless: 'shell',
      args: chromiumArgs(chromium.args, options.mode),
      userDataDir,
      // A pipe dies with the process, so a killed browser is noticed at once.
      pipe: true,
      timeout: 20_000,
      // Bounded CDP calls: a hung browser must surface as an error, not hang this process.
      protocolTimeout: 60_000,
      downloadBehavior: { policy: 'deny' },
    });
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true }).catch(() => undefined);
    throw new RenderError('Chromium could not be started', { cause: error });
  }

  const child = browser.process();
  const exited = new Promise<void>((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  trackProfile(userDataDir);
  const gone = exited
    .then(() => rm(userDataDir, { recursive: true, force: true }))
    .catch(() => undefined)
    .finally(() => liveProfiles.delete(userDataDir));
  // If Chromium dies on its own, its children and profile must still go.
  browser.once('disconnected', () => kill());

  function kill(): void {
    const pid = child?.pid;
    if (pid === undefined || child?.exitCode !== null || child?.signalCode !== null) return;
    try {
      // puppeteer starts Chromium detached, as the leader of its own process group: kill the whole tree.
      process.kill(-pid, 'SIGKILL');
    } catch {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  let userAgent: string;
  try {
    userAgent = (await browser.userAgent()).replace('HeadlessChrome/', 'Chrome/');
  } catch (error) {
    kill();
    throw new RenderError('Chromium started but does not answer', { cause: error });
  }
  return { browser, mode: options.mode, userAgent, kill, gone };
}
