import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EmulatorEndpoints } from './local-endpoints.js';
import { isProcessAlive } from '../../lib/process/process-identity.js';

/** What a running `npm start` tells other shells (the token CLI) about itself. */
export type DevStack = {
  pid: number;
  url: string;
  port: number;
  region: string;
  stage: string;
  endpoints: EmulatorEndpoints;
  tables: { tokens: string; usage: string };
  startedAt: string;
};

/** One record per running `npm start`, named by its process id, so several can run side by side. */
const STACKS_DIR = fileURLToPath(new URL('../../.local/stacks/', import.meta.url));

/**
 * The record of this process: `DEV_STACK_FILE` when set, else `<pid>.json` in
 * `DEV_STACKS_DIR` or `.local/stacks/` (tests keep their stacks apart from a developer's).
 */
export function devStackFile(pid = process.pid, env: NodeJS.ProcessEnv = process.env): string {
  return env.DEV_STACK_FILE || path.join(env.DEV_STACKS_DIR || STACKS_DIR, `${pid}.json`);
}

/** Records the running stack; readable by the owner only, it names local endpoints. */
export function writeDevStack(stack: DevStack, file = devStackFile(stack.pid)): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(stack, null, 2)}\n`, { mode: 0o600 });
}

/** Removes the record, unless another process has written its own there since. */
export function removeDevStack(pid: number, file = devStackFile(pid)): void {
  if (readDevStack(file)?.pid === pid) rmSync(file, { force: true });
}

/** Every recorded stack whose process is still alive (`DEV_STACK_FILE`'s alone when set); stale records are ignored. */
export function liveDevStacks(env: NodeJS.ProcessEnv = process.env): DevStack[] {
  const files = env.DEV_STACK_FILE ? [env.DEV_STACK_FILE] : listStackFiles(env.DEV_STACKS_DIR || STACKS_DIR);
  return files
    .map(readDevStack)
    .filter((stack): stack is DevStack => stack !== undefined && isProcessAlive(stack.pid))
    .sort((a, b) => a.port - b.port);
}

/** The one live stack in `file` (`DEV_STACK_FILE` or a given record), if its process still runs. */
export function readLiveDevStack(file = devStackFile()): DevStack | undefined {
  const stack = readDevStack(file);
  return stack && isProcessAlive(stack.pid) ? stack : undefined;
}

function listStackFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .map((name) => path.join(dir, name));
  } catch {
    return [];
  }
}

function readDevStack(file: string): DevStack | undefined {
  try {
    const stack = JSON.parse(readFileSync(file, 'utf8')) as DevStack;
    return typeof stack.pid === 'number' && stack.endpoints && stack.tables ? stack : undefined;
  } catch {
    return undefined;
  }
}
