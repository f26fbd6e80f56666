import { appDeps } from '../lib/app.js';
import { devicesEndpoint } from '../lib/api/devices.js';

export const handler = devicesEndpoint(appDeps());
