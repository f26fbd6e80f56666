import type { PreparePage } from '../browser/browser-session.js';
import { prepareCookieConsent } from './cookie-consent.js';
import { prepareSettleTracking } from './settle.js';

/**
 * What every new session's page gets before it is handed out: the settle
 * tracker of the `auto` wait (with the browser layer's own script, in one
 * call) and, when URL renders are expected, the cookie-banner hook (a render
 * that does not want it takes it off again; one that wants it and finds it
 * missing registers it itself).
 */
export const preparePage: PreparePage = (page, { alongside, cookieConsent }) =>
  Promise.all([prepareSettleTracking(page, alongside), cookieConsent ? prepareCookieConsent(page) : undefined]);
