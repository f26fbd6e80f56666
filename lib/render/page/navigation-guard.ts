import { PageLoadError } from '../errors.js';
import type { PageSource } from '../render-plan.js';

/**
 * How many times a page given by URL may send itself to another address
 * after the navigation to it (client-side redirects, links and forms its
 * scripts follow) before the render stops it as a loop. Redirect hops of one
 * navigation do not count: Chromium bounds those itself (20).
 */
export const MAX_NAVIGATIONS_AWAY = 10;

/** Judges each navigation of the main frame (a `RequestPolicy.navigationGuard`), and rejects `stopped` once a loop is found. */
export type NavigationGuard = {
  allow(navigation: { url: string; redirect: boolean }): boolean;
  /** Rejects with a `PageLoadError` when a page given by URL navigates away too often; never resolves. */
  stopped: Promise<never>;
};

/**
 * What a render lets its page navigate to. A page given as HTML (`html`,
 * `htmlTemplate`) is the document the caller wrote: every navigation of the
 * main frame away from it (a clicked link, a sent form, `location.href = …`,
 * a meta refresh) is aborted and the document stays, so an auto-clicking
 * page renders as written instead of running into the navigation timeout.
 * A page given by URL follows its redirects, server and client side, up to
 * `MAX_NAVIGATIONS_AWAY` after the first; one more stops the render with a
 * clear reason at once. Frames inside the page navigate freely.
 */
export function guardNavigations(source: PageSource['kind']): NavigationGuard {
  let reject: (error: PageLoadError) => void = () => undefined;
  const stopped = new Promise<never>((_resolve, rejectStopped) => (reject = rejectStopped));
  // Raced against the load, which may end first: nobody else waits on it.
  stopped.catch(() => undefined);
  if (source !== 'url') return { allow: () => false, stopped };

  let navigations = 0;
  let loop = false;
  return {
    allow({ redirect }) {
      if (loop) return false;
      if (redirect) return true;
      navigations += 1;
      if (navigations <= MAX_NAVIGATIONS_AWAY + 1) return true;
      loop = true;
      reject(
        new PageLoadError(
          `The page kept navigating away: more than ${MAX_NAVIGATIONS_AWAY} navigations after the first ` +
            '(a redirect loop, or scripts that follow links or send forms by themselves)',
        ),
      );
      return false;
    },
    stopped,
  };
}
