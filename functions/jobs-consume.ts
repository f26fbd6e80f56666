import { renderDeps, warmRenderer } from '../lib/render-app.js';
import { jobsConsumer } from '../lib/jobs/job-consumers.js';

const deps = renderDeps();
await warmRenderer(deps);

export const handler = jobsConsumer(deps);
