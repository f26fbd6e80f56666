import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Node's compile cache (V8's code cache of each module, kept on disk) for the
 * modules a rendering function loads, in the temporary directory: a Lambda
 * execution environment keeps its /tmp across processes (a runtime that
 * crashed or timed out and starts again, a second function in the same
 * sandbox; on a laptop every instance of the local runtime), so a process
 * that starts where an earlier one ran compiles none of the renderer's
 * modules again (about 30 ms of CPU at a rendering function's share, of a
 * cold start that is CPU-bound; docs/performance.md). A fresh /tmp (every
 * new environment) starts with an empty cache and compiles as before.
 * Enabled before the modules are compiled: lib/bootstrap/rendering-handler.ts imports the
 * renderer only after this has run.
 */
export function enableCompileCache(): void {
  // Node 22.1 and later; an older Node just compiles.
  nodeModule.enableCompileCache?.(join(tmpdir(), COMPILE_CACHE_DIR));
}

/** The cache's folder in the temporary directory: the name Node and tsx use by default. */
export const COMPILE_CACHE_DIR = 'node-compile-cache';

let flushed = false;

/**
 * Writes what was compiled so far to the cache. Node documents the write as
 * happening when the process exits, which a Lambda process seldom does (it is
 * frozen, then killed; Node 22.23 here also writes entries earlier, as
 * modules compile, but not every Node 22 Lambda may run does): a rendering
 * function writes it once, after its first answer, in the post-response
 * phase (lib/bootstrap/renderer-init.ts), when the modules of INIT and of a first render
 * are compiled.
 */
export function flushCompileCacheOnce(): void {
  if (flushed) return;
  flushed = true;
  // Node 22.10 and later.
  nodeModule.flushCompileCache?.();
}
