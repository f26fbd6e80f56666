import type { AppDeps } from '../bootstrap/app-deps.js';
import { httpEndpoint } from '../http/http-endpoint.js';
import { json } from '../http/responses.js';
import { listDevices } from '../schemas/devices.js';

/** `GET /v1/devices`: every screenshot device preset with its viewport. */
export function devicesEndpoint(deps: Pick<AppDeps, 'config' | 'tokens' | 'logger' | 'usage'>) {
  const body = { data: listDevices() };
  return httpEndpoint({ name: 'devices', handle: async () => json(200, body) }, deps);
}
