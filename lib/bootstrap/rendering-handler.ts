import { enableCompileCache } from '../lambda/compile-cache.js';
import type { HandlerFactory, RenderDeps } from './renderer-init.js';

export type { HandlerFactory, RenderDeps } from './renderer-init.js';

/*
 * A rendering function's entry: its module imports this one statically, and
 * this one the renderer (lib/bootstrap/renderer-init.ts) dynamically, once the compile
 * cache is on. Every module a static import reaches is compiled before any
 * of them runs, so the cache must be enabled in a module that reaches none of
 * the renderer's.
 */
enableCompileCache();

/** The rendering function's handler, built during INIT with the browser warm (see lib/bootstrap/renderer-init.ts). */
export async function renderingHandler<H>(endpoint: () => Promise<HandlerFactory<H>>): Promise<H> {
  return (await import('./renderer-init.js')).renderingHandler(endpoint);
}

/** The container's rendering dependencies, built once (see lib/bootstrap/renderer-init.ts). */
export async function renderDeps(): Promise<RenderDeps> {
  return (await import('./renderer-init.js')).renderDeps();
}
