import { appDeps } from '../lib/bootstrap/app-deps.js';
import { deadJobsConsumer } from '../lib/job-runner/job-consumers.js';

export const handler = deadJobsConsumer(appDeps());
