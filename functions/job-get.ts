import { appDeps } from '../lib/app.js';
import { getJobEndpoint } from '../lib/api/jobs.js';

export const handler = getJobEndpoint(appDeps());
