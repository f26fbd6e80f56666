/**
 * The page options of a plan as small steps, each setting one thing on the
 * page before its first request leaves. They are composed in this order and
 * run as one round of CDP calls, in parallel: none depends on another.
 */
import type { Page } from 'puppeteer-core';
import type { PageSession } from '../browser/browser-session.js';
import { PlanStepError } from '../errors.js';
import type { CookiePlan, PagePlan, ScreenPlan } from '../render-plan.js';

/** One page option applied to the session; undefined when the plan does not ask for it. */
type PageStep = (session: PageSession, page: PagePlan, screen: ScreenPlan | null) => Promise<unknown> | undefined;

const headers: PageStep = ({ page }, plan) =>
  Object.keys(plan.headers).length > 0 ? page.setExtraHTTPHeaders(plan.headers) : undefined;

const cookies: PageStep = (session, plan) => (plan.cookies.length > 0 ? setCookies(session, plan.cookies) : undefined);

const authentication: PageStep = (session, plan) => {
  if (!plan.authentication) return undefined;
  session.policy.usedCredentials = true;
  return session.page.authenticate({ ...plan.authentication });
};

const javascript: PageStep = ({ page }, plan) => (plan.javascript ? undefined : page.setJavaScriptEnabled(false));

const media: PageStep = (session, plan) => {
  if (!plan.colorScheme && !plan.mediaType) return undefined;
  // One call for both: each setEmulatedMedia replaces the whole media emulation, so two calls would undo each other.
  const features = plan.colorScheme ? [{ name: 'prefers-color-scheme', value: plan.colorScheme }] : [];
  return session.cdp().then((cdp) => cdp.send('Emulation.setEmulatedMedia', { media: plan.mediaType ?? '', features }));
};

const timezone: PageStep = ({ page }, plan) => (plan.timezone ? emulateTimezone(page, plan.timezone) : undefined);

const screen: PageStep = ({ page }, _plan, screenPlan) => {
  if (!screenPlan) return undefined;
  const { userAgent } = screenPlan;
  return Promise.all([page.setViewport(screenPlan.viewport), userAgent ? page.setUserAgent(userAgent) : undefined]);
};

/** The set-up steps, in the order they are composed. */
const PAGE_STEPS: readonly PageStep[] = [headers, cookies, authentication, javascript, media, timezone, screen];

/** Everything that must be in place before the first request leaves: one round of CDP calls, in parallel. */
export async function applyPageOptions(session: PageSession, plan: PagePlan, screenPlan: ScreenPlan | null): Promise<void> {
  await Promise.all(PAGE_STEPS.map((step) => step(session, plan, screenPlan)));
}

async function setCookies(session: PageSession, list: CookiePlan[]): Promise<void> {
  try {
    await (await session.cdp()).send('Network.setCookies', { cookies: list });
  } catch (error) {
    throw new PlanStepError('cookies', `Chromium refused a cookie: ${(error as Error).message}`, { cause: error });
  }
}

async function emulateTimezone(page: Page, zone: string): Promise<void> {
  try {
    await page.emulateTimezone(zone);
  } catch (error) {
    throw new PlanStepError('timezone', 'Unknown time zone', { cause: error });
  }
}
