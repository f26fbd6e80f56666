import { appDeps } from '../lib/app.js';
import { deadJobsConsumer } from '../lib/job-runner/job-consumers.js';

export const handler = deadJobsConsumer(appDeps());
