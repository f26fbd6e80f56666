import { appDeps } from '../lib/app.js';
import { usageEndpoint } from '../lib/api/usage.js';

export const handler = usageEndpoint(appDeps());
