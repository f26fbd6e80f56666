import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { type ProcessIdentity, signalProcess } from '../../lib/process/process-identity.js';

/**
 * Every live process of an `npm start` run, found by what it carries rather
 * than by the tree (a killed parent's children are reparented): the run's
 * temporary directory, in the environment (npm start, its instances,
 * Chromium: they inherit it) or on the command line (Chromium's profile).
 */
export function processesOf(marker: string): (ProcessIdentity & { cmd: string })[] {
  const found: (ProcessIdentity & { cmd: string })[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const environ = readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
      if (cmd.includes(marker) || environ.includes(`TMPDIR=${marker}`)) found.push({ pid: Number(name), start: fields[19], cmd });
    } catch {
      // Gone meanwhile, or another user's.
    }
  }
  return found;
}

/** The processes of the run still alive after waiting up to `limitMs` for them all to end. */
export async function leftAfter(marker: string, limitMs = 25_000): Promise<(ProcessIdentity & { cmd: string })[]> {
  const deadline = Date.now() + limitMs;
  while (processesOf(marker).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  return processesOf(marker);
}

/** SIGKILLs every process of the run still alive (a test's cleanup). */
export function killRun(marker: string): void {
  for (const found of processesOf(marker)) signalProcess(found, 'SIGKILL');
}

/** Reads an `npm start`'s output until its banner (URL and token) shows; kills it and fails past `limitMs` or when it exits first. */
export async function banner(child: ChildProcess, limitMs = 60_000): Promise<{ baseUrl: string; token: string; output: () => string }> {
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const deadline = Date.now() + limitMs;
  for (;;) {
    const baseUrl = /DocRender API listening on (\S+)/.exec(out)?.[1];
    const token = /^Token: (\S+)$/m.exec(out)?.[1];
    if (baseUrl && token) return { baseUrl, token, output: () => out };
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      assert.fail(`npm start did not print its banner:\n${out}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
