import { appDeps } from '../lib/app.js';
import { webhooksConsumer } from '../lib/webhooks/webhook-consumer.js';

export const handler = webhooksConsumer(appDeps());
