import { parseWebhookMessage } from '../jobs/job-messages.js';
import { queueConsumer } from '../jobs/queue-consumer.js';
import { deliverWebhook, type WebhookDeps } from './deliver-webhook.js';

/** The webhooks queue's consumer: one webhook attempt per message (see `deliverWebhook`). */
export function webhooksConsumer(deps: WebhookDeps) {
  return queueConsumer({
    name: 'webhooks-deliver',
    parse: parseWebhookMessage,
    handle: (message, clock) => deliverWebhook(message, deps, clock),
    logger: deps.logger,
  });
}
