import { appDeps } from '../lib/app.js';
import { deadJobsConsumer } from '../lib/jobs/job-consumers.js';

export const handler = deadJobsConsumer(appDeps());
