/** How many times a webhook is attempted: the first call and one retry per configured delay. */
export function maxWebhookAttempts(retryDelaysSeconds: readonly number[]): number {
  return retryDelaysSeconds.length + 1;
}

/** Seconds to wait before attempt `attempt` (1-based): none before the first, then the configured delays in turn. */
export function delayBeforeAttempt(attempt: number, retryDelaysSeconds: readonly number[]): number {
  return attempt <= 1 ? 0 : (retryDelaysSeconds[attempt - 2] ?? retryDelaysSeconds.at(-1) ?? 0);
}
