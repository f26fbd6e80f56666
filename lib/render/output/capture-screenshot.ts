import type { Page, ScreenshotOptions } from 'puppeteer-core';
import { waitAllowanceMs, within, type Deadline } from '../../deadline.js';
import { RenderError, RenderTimeoutError } from '../../errors.js';
import { step } from '../../step-bound.js';
import { MAX_IMAGE_PIXELS } from '../../input/image-limits.js';
import type { PageSession } from '../browser/browser-session.js';
import { PlanStepError } from '../errors.js';
import { assertSelector } from '../page/selectors.js';
import type { ImagePlan, ImageType } from '../render-plan.js';
import { composeOverlay } from './overlay.js';

/** How long `screenshot.element` waits for its element to become visible (the contract's limit). */
export const ELEMENT_WAIT_MS = 15_000;

/** Tallest full-page capture, in CSS pixels; the rest of a longer page is cut off. */
export const MAX_FULL_PAGE_CSS_HEIGHT = MAX_IMAGE_PIXELS;

/** How long a question to the page about its content may take (a page whose scripts spin never answers). */
const PAGE_QUERY_MS = 2_000;

/** How long a full-page capture may spend scrolling through the page to wake lazy content. */
const LAZY_SCROLL_MS = 2_000;

/** Then how long it waits for what the scrolling started to load. */
const LAZY_LOAD_MS = 2_000;

const CONTENT_TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

/**
 * Takes the screenshot of the loaded page as the `screenshot` options ask:
 * the viewport, a clip, one element, or the full page (lazy content woken
 * first), then composes the overlay if one is asked for.
 */
export async function captureScreenshot(
  session: PageSession,
  plan: Pick<ImagePlan, 'screen' | 'shot' | 'overlay'>,
  deadline: Deadline,
): Promise<{ body: Buffer; contentType: (typeof CONTENT_TYPES)[ImageType]; bodies?: Buffer[] }> {
  const { shot, screen, overlay } = plan;
  const { type, quality } = shot;
  const base: ScreenshotOptions = {
    // The overlay is composed from a lossless shot and encoded once, at the end.
    type: overlay ? 'png' : type,
    omitBackground: shot.omitBackground,
    optimizeForSpeed: shot.optimizeForSpeed,
    fromSurface: shot.fromSurface,
  };
  if (quality !== undefined && !overlay) base.quality = quality;

  if (shot.target.kind === 'elements') {
    // One after another in the one page: each a capture of its own, as one element's would be.
    const bodies: Buffer[] = [];
    for (const selector of shot.target.selectors) bodies.push(await shootElement(session.page, selector, base, deadline));
    const [first] = bodies;
    if (!first) throw new RenderError('No element to capture');
    return { body: first, contentType: CONTENT_TYPES[type], bodies };
  }
  const data = await shoot(session, plan, base, deadline);
  if (!overlay) return { body: data, contentType: CONTENT_TYPES[type] };

  const side = await session.openSidePage();
  try {
    const { width, height } = pngSize(data);
    const out: { type: ImageType; quality?: number; omitBackground?: boolean } = { type, omitBackground: shot.omitBackground };
    if (quality !== undefined) out.quality = quality;
    // Image pixels per CSS pixel, so the overlay's margin and radius keep their CSS size on a 2× shot.
    const scale = (screen.viewport.deviceScaleFactor ?? 1) * (shot.target.kind === 'clip' ? shot.target.clip.scale : 1);
    const body = await step(deadline, 'capture', composeOverlay(side, { data, type: 'png', width, height, scale }, overlay, out));
    return { body, contentType: CONTENT_TYPES[type] };
  } finally {
    await side.close().catch(() => undefined);
  }
}

async function shoot(
  session: PageSession,
  plan: Pick<ImagePlan, 'screen' | 'shot'>,
  base: ScreenshotOptions,
  deadline: Deadline,
): Promise<Buffer> {
  const { page } = session;
  const { target } = plan.shot;
  const { viewport } = plan.screen;
  switch (target.kind) {
    case 'element':
      return await shootElement(page, target.selector, base, deadline);
    case 'elements':
      return await shootElement(page, target.selectors[0] ?? '', base, deadline);
    case 'fullPage': {
      await wakeLazyContent(session, deadline);
      const height = await within(page.evaluate(() => document.documentElement.scrollHeight).catch(() => 0), PAGE_QUERY_MS, 0);
      const maxHeight = maxFullPageHeight(viewport.deviceScaleFactor ?? 1);
      if (height <= maxHeight) {
        return await capture(page, { ...base, fullPage: true, captureBeyondViewport: target.captureBeyondViewport }, deadline);
      }
      return await capture(page, { ...base, clip: { x: 0, y: 0, width: viewport.width, height: maxHeight }, captureBeyondViewport: true }, deadline);
    }
    case 'clip':
      return await capture(page, { ...base, clip: target.clip, captureBeyondViewport: target.captureBeyondViewport }, deadline);
    case 'viewport':
      // A capture of the viewport cannot reach beyond it (puppeteer sets false whatever is asked).
      return await capture(page, { ...base, captureBeyondViewport: false }, deadline);
  }
}

/**
 * Full-page height limit in CSS pixels: {@link MAX_FULL_PAGE_CSS_HEIGHT}, or
 * less where the device scale factor would make the image taller than the
 * largest edge Chromium can capture.
 */
export function maxFullPageHeight(deviceScaleFactor: number): number {
  return Math.min(MAX_FULL_PAGE_CSS_HEIGHT, Math.floor(MAX_IMAGE_PIXELS / Math.max(deviceScaleFactor, 0.1)));
}

async function capture(page: Page, options: ScreenshotOptions, deadline: Deadline): Promise<Buffer> {
  try {
    // puppeteer's screenshot has no timeout of its own: a page that stopped drawing would hold it for the whole budget.
    const data = await step(deadline, 'capture', page.screenshot(options));
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  } catch (error) {
    if (error instanceof RenderTimeoutError) throw error;
    throw new RenderError('Capturing the screenshot failed', { cause: error });
  }
}

async function shootElement(page: Page, selector: string, base: ScreenshotOptions, deadline: Deadline): Promise<Buffer> {
  const waitMs = Math.max(1, Math.min(ELEMENT_WAIT_MS, waitAllowanceMs(deadline)));
  const notFound = `No visible element matches the selector within ${Math.round(waitMs / 1000)} s`;
  await assertSelector(page, selector, 'element');
  let element;
  try {
    element = await page.waitForSelector(selector, { visible: true, timeout: waitMs });
  } catch (error) {
    throw new PlanStepError('element', notFound, { cause: error });
  }
  if (!element) throw new PlanStepError('element', notFound);
  try {
    const data = await step(deadline, 'capture', element.screenshot(base));
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  } catch (error) {
    if (error instanceof RenderTimeoutError) throw error;
    // The element can vanish or collapse between being found and being shot.
    if (/not visible|no longer attached|detached/i.test((error as Error).message)) {
      throw new PlanStepError('element', notFound, { cause: error });
    }
    throw new RenderError('Capturing the element failed', { cause: error });
  } finally {
    await element.dispose().catch(() => undefined);
  }
}

/**
 * Scrolls down the page a screen at a time so that lazy images and
 * scroll-triggered content load, back to the top, then waits (bounded) for
 * what that started: the network going quiet and the images decoding.
 */
async function wakeLazyContent(session: PageSession, deadline: Deadline): Promise<void> {
  const { page } = session;
  // Only scripts and loading="lazy" hold content back until it is scrolled to: a page with neither
  // (most generated documents) is complete as it stands, and scrolling through it is wasted time.
  const lazy = await within(page.evaluate(LAZY_CONTENT_POSSIBLE).catch(() => true), PAGE_QUERY_MS, true);
  if (lazy === false) return;
  const scrollMs = Math.min(LAZY_SCROLL_MS, waitAllowanceMs(deadline));
  await within(page.evaluate(scrollThroughPage(MAX_FULL_PAGE_CSS_HEIGHT, scrollMs)).catch(() => undefined), scrollMs + 500, undefined);
  const loadMs = Math.min(LAZY_LOAD_MS, waitAllowanceMs(deadline));
  const until = Date.now() + loadMs;
  await session.activity.waitForQuiet({ idleMs: 100, until });
  await within(
    page
      .evaluate(async () => {
        await Promise.all(Array.from(document.images, (image) => (image.complete ? undefined : image.decode().catch(() => undefined))));
      })
      .catch(() => undefined),
    Math.max(0, until - Date.now()),
    undefined,
  );
}

/** Whether anything on the page could be waiting to be scrolled into view: scripts (in any frame) or native lazy loading. */
const LAZY_CONTENT_POSSIBLE = `document.scripts.length > 0 || window.frames.length > 0 || document.querySelector('[loading="lazy"]') !== null`;

/**
 * Page-side scrolling, one screen at a time, with a frame (or 50 ms where
 * frames do not come) at each stop for lazy loading to react. Plain
 * JavaScript in a string so no bundler helper slips into the page.
 */
const scrollThroughPage = (maxHeight: number, maxMs: number) => `(async () => {
  const started = Date.now();
  const scroller = document.scrollingElement || document.documentElement;
  const step = Math.max(200, Math.floor(window.innerHeight * 0.9));
  const pause = () => new Promise((resolve) => { requestAnimationFrame(() => resolve()); window.setTimeout(resolve, 50); });
  for (let y = step; y < Math.min(scroller.scrollHeight, ${maxHeight}) && Date.now() - started < ${maxMs}; y += step) {
    window.scrollTo(0, y);
    await pause();
  }
  window.scrollTo(0, Math.min(scroller.scrollHeight, ${maxHeight}));
  await pause();
  window.scrollTo(0, 0);
})()`;

/** Pixel size of a PNG, from its header. */
function pngSize(data: Buffer): { width: number; height: number } {
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}
