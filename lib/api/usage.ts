import type { AppDeps } from '../bootstrap/app-deps.js';
import { httpEndpoint } from '../http/http-endpoint.js';
import { json } from '../http/responses.js';
import { usageReport } from '../quota/usage-report.js';

/** `GET /v1/usage` (addition): the caller's plan, this month's quota and units used, and its rate. */
export function usageEndpoint(deps: Pick<AppDeps, 'config' | 'tokens' | 'logger' | 'usage'>) {
  return httpEndpoint(
    {
      name: 'usage',
      handle: async ({ caller }) => json(200, await usageReport(deps.usage, caller.token)),
    },
    deps,
  );
}
