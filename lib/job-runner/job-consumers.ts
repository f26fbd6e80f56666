import { parseJobMessage } from '../jobs/job-messages.js';
import { queueConsumer } from '../jobs/queue-consumer.js';
import { giveUpJob, runJob, type RunJobDeps } from './run-job.js';

/** The jobs queue's consumer: renders each queued job (see `runJob`). */
export function jobsConsumer(deps: RunJobDeps) {
  return queueConsumer({
    name: 'jobs-consume',
    parse: parseJobMessage,
    handle: (message, clock) => runJob(message, deps, clock),
    logger: deps.logger,
  });
}

/** The jobs dead-letter queue's consumer: fails the jobs whose messages kept failing, and fires their webhooks. */
export function deadJobsConsumer(deps: Omit<RunJobDeps, 'renderer' | 'files'>) {
  return queueConsumer({
    name: 'jobs-dead-letter',
    parse: parseJobMessage,
    handle: (message) => giveUpJob(message, deps),
    logger: deps.logger,
  });
}
