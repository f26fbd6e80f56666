import { appDeps } from '../lib/bootstrap/app-deps.js';
import { devicesEndpoint } from '../lib/api/devices.js';

export const handler = devicesEndpoint(appDeps());
