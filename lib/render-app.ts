import { appDeps, type AppDeps } from './app.js';
import { sharedEgressProxy } from './net/index.js';
import { createRenderer } from './render/index.js';
import type { Renderer } from './render/types.js';

/** Dependencies of the functions that render: the shared ones plus the browser. */
export type RenderDeps = AppDeps & { renderer: Renderer };

let deps: RenderDeps | undefined;

/** The container's rendering dependencies; the browser is launched lazily (see `warmRenderer`). */
export function renderDeps(): RenderDeps {
  if (deps) return deps;
  const base = appDeps();
  deps = {
    ...base,
    renderer: createRenderer({
      mode: base.config.chromiumMode,
      executablePath: base.config.chromiumPath,
      timeoutMs: base.config.renderTimeoutMs,
      // Every address a page was refused or could not reach is a log line (host and port, never the path):
      // a refusal is often someone probing the network.
      egress: () =>
        sharedEgressProxy({
          onEvent: ({ outcome, kind, host, port, reason, addressClass }) =>
            base.logger[outcome === 'refused' ? 'warn' : 'info'](`egress ${outcome}`, { egress: { kind, host, port, reason, addressClass } }),
        }),
    }),
  };
  return deps;
}

/**
 * Launches the browser during function initialisation so the first request
 * does not pay for it. A failure here is not fatal: the first render retries.
 */
export async function warmRenderer(app: RenderDeps): Promise<void> {
  try {
    await app.renderer.warm();
  } catch (error) {
    app.logger.warn('browser warm-up failed; the first render will retry', { error: error as Error });
  }
}
