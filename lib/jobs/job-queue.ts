/** The message that asks a consumer to run a job: only its key; the job record holds the rest. */
export type JobMessage = { accountId: string; jobId: string };

/** The message that asks for one webhook attempt of a finished job. */
export type WebhookMessage = JobMessage & { attempt: number };

/** Port: the queues between the API and the consumers. */
export interface JobQueue {
  /** Queues a job to be rendered, no earlier than `delaySeconds` from now (default 0, at most 900). */
  sendJob(message: JobMessage, delaySeconds?: number): Promise<void>;
  /** Queues a webhook attempt, to be made no earlier than `delaySeconds` from now (at most 900). */
  sendWebhook(message: WebhookMessage, delaySeconds: number): Promise<void>;
}
