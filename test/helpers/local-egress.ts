import { Logger } from '@aws-lambda-powertools/logger';
import { createEgressPolicy, type EgressProxy, startEgressProxy } from '../../lib/net/index.js';
import { withFinishing } from '../../lib/document-renderer.js';
import { createRenderer, type Renderer, type RendererOptions } from '../../lib/render/index.js';
import { templatesFor } from '../../lib/templates/template-engine.js';
import { buildDocumentPlan } from '../../lib/plan/build-plan.js';
import { renderForRequest } from '../../lib/plan/request-errors.js';
import type { DocumentRenderer, RenderResult } from '../../lib/render/types.js';
import type { DocumentInput } from '../../lib/schemas/merge-requests.js';

/** What the test servers listen on: allowed here as `npm start` allows it, everything else private stays refused. */
export const LOCAL_TEST_HOSTS = ['127.0.0.1', 'localhost'];

let proxy: Promise<EgressProxy> | undefined;

/**
 * The egress proxy render tests launch Chromium behind: the service's own
 * proxy and policy, with only the test servers' loopback names allowed
 * (in place of `ALLOW_PRIVATE_HOSTS`). One per test process.
 */
export function localEgress(): Promise<EgressProxy> {
  proxy ??= startEgressProxy({ policy: createEgressPolicy({ allowPrivateHosts: LOCAL_TEST_HOSTS }) });
  return proxy;
}

/**
 * A renderer as the render tests use it: multi-process Chromium behind
 * `localEgress`, a 20-second budget, warmed (browser launched, first session
 * ready) before it is returned; `options` override those. Close it in `after`.
 */
export async function warmRenderer(options: Partial<RendererOptions> = {}): Promise<Renderer> {
  const logger = new Logger({ serviceName: 'docrender' });
  const renderer = createRenderer({
    mode: 'multi-process',
    timeoutMs: 20_000,
    egress: localEgress,
    // Its log lines go to a Powertools logger, as the service's do (lib/bootstrap/renderer-init.ts).
    log: (level, message, details) => logger[level](message, details),
    ...options,
  });
  await renderer.warm();
  return renderer;
}

/** A document renderer that takes validated requests: each is planned as the edge plans it. */
export type RequestRenderer = Omit<DocumentRenderer, 'render'> & {
  render(input: DocumentInput, options?: { timeoutMs?: number }): Promise<RenderResult>;
};

/** `warmRenderer()` behind the finishing stage (watermark, protection, merge), as the service renders: request → plan → render. */
export async function warmFinishingRenderer(): Promise<RequestRenderer> {
  const renderer = withFinishing(await warmRenderer(), 20_000);
  return { ...renderer, render: async (input, options) => renderForRequest(renderer, buildDocumentPlan(input, await templatesFor(input)), options) };
}
