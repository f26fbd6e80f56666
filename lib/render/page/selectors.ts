import type { Page } from 'puppeteer-core';
import { PlanStepError, type PlanStep } from '../errors.js';

/**
 * Refuses a selector that is not valid CSS (puppeteer's waits would only
 * time out on it): one query, which throws a SyntaxError for bad syntax.
 * `step` is the plan step the selector belongs to.
 */
export async function assertSelector(page: Page, selector: string, step: PlanStep): Promise<void> {
  try {
    const found = await page.$(selector);
    await found?.dispose();
  } catch (error) {
    if (/SyntaxError|not a valid selector|Invalid selector/i.test(String((error as Error).message ?? error))) {
      throw new PlanStepError(step, 'Not a valid CSS selector', { cause: error });
    }
    // Anything else (a navigation in progress) is for the wait itself to deal with.
  }
}
