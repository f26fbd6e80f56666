import { appDeps } from '../lib/bootstrap/app-deps.js';
import { usageEndpoint } from '../lib/api/usage.js';

export const handler = usageEndpoint(appDeps());
