import { appDeps } from '../lib/bootstrap/app-deps.js';
import { webhooksConsumer } from '../lib/webhooks/webhook-consumer.js';

export const handler = webhooksConsumer(appDeps());
