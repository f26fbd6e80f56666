import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EmulatorEndpoints } from './local-endpoints.js';

/** What a running `npm start` tells other shells (the token CLI) about itself. */
export type DevStack = {
  pid: number;
  url: string;
  region: string;
  stage: string;
  endpoints: EmulatorEndpoints;
  tables: { tokens: string };
  startedAt: string;
};

/** `.local/dev-stack.json` in the project, or `DEV_STACK_FILE` (lets tests run stacks side by side). */
export function devStackFile(env: NodeJS.ProcessEnv = process.env): string {
  return env.DEV_STACK_FILE || fileURLToPath(new URL('../../.local/dev-stack.json', import.meta.url));
}

/** Records the running stack; readable by the owner only, it names local endpoints. */
export function writeDevStack(stack: DevStack, file = devStackFile()): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(stack, null, 2)}\n`, { mode: 0o600 });
}

/** Removes the record, unless another process has written its own since. */
export function removeDevStack(pid: number, file = devStackFile()): void {
  if (readDevStack(file)?.pid === pid) rmSync(file, { force: true });
}

/** The recorded stack if its process is still alive; a stale file is ignored. */
export function readLiveDevStack(file = devStackFile()): DevStack | undefined {
  const stack = readDevStack(file);
  return stack && isAlive(stack.pid) ? stack : undefined;
}

function readDevStack(file: string): DevStack | undefined {
  try {
    const stack = JSON.parse(readFileSync(file, 'utf8')) as DevStack;
    return typeof stack.pid === 'number' && stack.endpoints && stack.tables ? stack : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
