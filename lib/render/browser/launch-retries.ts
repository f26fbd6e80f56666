import { appendFileSync } from 'node:fs';

/** The variable naming a file each launch retry appends a line to: CI counts them (the local runtime passes it to its instances). */
export const LAUNCH_RETRY_LOG = 'DOCRENDER_LAUNCH_RETRY_LOG';

/**
 * Says that a Chromium launch is tried again: on stderr, in a line of its own
 * ("launch retry: …"), and as that line appended to the file
 * `LAUNCH_RETRY_LOG` names, if any. A retry hides a failure whose cause may
 * not be known, so CI prints how many fired (issue 45 wants runs where none
 * does) rather than letting them pass unseen. Kept apart from the launcher so
 * the local runtime can name the variable without loading puppeteer.
 */
export function noteLaunchRetry(why: string): void {
  const line = `launch retry: ${why}`;
  process.stderr.write(`${line}\n`);
  const file = process.env[LAUNCH_RETRY_LOG];
  if (!file) return;
  try {
    appendFileSync(file, `${new Date().toISOString()} pid ${process.pid} ${line}\n`);
  } catch {
    // Counting must not fail the launch.
  }
}
