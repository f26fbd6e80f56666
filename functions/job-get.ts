import { appDeps } from '../lib/bootstrap/app-deps.js';
import { getJobEndpoint } from '../lib/api/jobs.js';

export const handler = getJobEndpoint(appDeps());
