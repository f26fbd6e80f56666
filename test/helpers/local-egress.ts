import { Logger } from '@aws-lambda-powertools/logger';
import { createEgressPolicy, type EgressProxy, startEgressProxy } from '../../lib/net/index.js';
import { createRenderer, type Renderer } from '../../lib/render/index.js';

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
 * ready) before it is returned. Close it in `after`.
 */
export async function warmRenderer(): Promise<Renderer> {
  const logger = new Logger({ serviceName: 'docrender' });
  const renderer = createRenderer({
    mode: 'multi-process',
    timeoutMs: 20_000,
    egress: localEgress,
    // Its log lines go to a Powertools logger, as the service's do (render-app.ts).
    log: (level, message, details) => logger[level](message, details),
  });
  await renderer.warm();
  return renderer;
}
