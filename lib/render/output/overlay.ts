import type { HTTPRequest, Page } from 'puppeteer-core';
import { RenderError } from '../../errors.js';
import { MAX_IMAGE_PIXELS } from '../../input/image-limits.js';
import { resolveEgress } from '../../net/index.js';
import { PlanStepError } from '../errors.js';
import type { OverlayPlan } from '../render-plan.js';

/**
 * Screenshot overlays: the shot laid on a background (colour, gradient or
 * image) with a margin, optionally inside a drawn browser window, with
 * rounded corners. The CSS filter applies to the background, not the shot,
 * as the vendor's SDK documents it ("Apply CSS Filter to background"): a
 * blurred or greyed backdrop behind a screenshot kept as rendered. Composed
 * as HTML on a spare page and captured again, so that every CSS feature of
 * Chromium is available.
 *
 * Caller strings never become markup: the page is a fixed template, and the
 * background and filter are set through the CSSOM (`style.setProperty`), which
 * parses them as a single property value or drops them, after `CSS.supports`;
 * the conservative character set was checked at the edge (lib/schemas), and
 * the page fetches nothing over http(s) that `allowUrl` refuses, a CSS `url()`
 * included.
 */

export type OverlayOptions = OverlayPlan;

export type OverlayShot = {
  data: Buffer;
  type: 'png' | 'jpeg' | 'webp';
  /** Image pixels. */
  width: number;
  height: number;
  /** Image pixels per CSS pixel of the shot (the device scale factor × clip scale); default 1. Margin, frame and radius are CSS pixels and scale with it. */
  scale?: number;
};

export type OverlayTarget = { type: 'png' | 'jpeg' | 'webp'; quality?: number; omitBackground?: boolean };

export type ComposeOptions = {
  /**
   * Decides whether the overlay page may fetch an http(s) URL (the background
   * image and its redirects). Defaults to a check that the host resolves only
   * to public addresses or is listed in ALLOW_PRIVATE_HOSTS.
   */
  allowUrl?: (url: string) => boolean | Promise<boolean>;
};

/** Default background: a soft indigo-to-violet diagonal gradient. */
export const DEFAULT_BACKGROUND = 'linear-gradient(135deg, #667eea 0%, #764ba2 100%)';
export const DEFAULT_MARGIN = 40;
/** Height of the drawn browser window bar, CSS pixels. */
export const FRAME_BAR_HEIGHT = 36;
/** Corner radius of a drawn browser window when none is asked for. */
const FRAMED_DEFAULT_RADIUS = 10;
const LOAD_TIMEOUT_MS = 10_000;
const BACKGROUND_IMAGE_WAIT_MS = 5_000;


type Background = NonNullable<OverlayPlan['background']> | { kind: 'none' };

/** The plan's background, or the default one (none when the caller wants a transparent image and named none). */
function backgroundOf(background: OverlayPlan['background'], omitBackground: boolean): Background {
  if (background) return background;
  return omitBackground ? { kind: 'none' } : { kind: 'css', value: DEFAULT_BACKGROUND };
}

function nonNegative(value: number | null | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}

/**
 * Default `allowUrl`: http(s) to a host the egress policy lets through (public
 * addresses, or what ALLOW_PRIVATE_HOSTS names). The connection itself goes
 * through the egress proxy like every request of the page; this check only
 * spares the proxy a request it would refuse.
 */
export async function isPublicHttpUrl(url: string): Promise<boolean> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  try {
    await resolveEgress(parsed.hostname);
    return true;
  } catch {
    return false;
  }
}

const TEMPLATE = `<!doctype html><html><head><meta charset="utf-8"><style>
html, body { margin: 0; padding: 0; background: transparent; overflow: hidden; }
#canvas { position: relative; box-sizing: border-box; display: flex; align-items: flex-start; justify-content: flex-start; }
#bg { position: absolute; inset: 0; overflow: hidden; }
#bg-image { position: absolute; inset: 0; width: 100%; height: 100%; object-fit: cover; display: none; }
#window { position: relative; overflow: hidden; box-shadow: 0 18px 40px rgba(15, 23, 42, 0.28); }
#window.flat { box-shadow: none; }
#bar { display: none; box-sizing: border-box; align-items: center; gap: 8px; padding: 0 14px; }
#bar.light { display: flex; background: #ececee; border-bottom: 1px solid #d4d4d8; }
#bar.dark { display: flex; background: #2c2c31; border-bottom: 1px solid #1b1b1f; }
#bar i { display: block; width: 12px; height: 12px; border-radius: 50%; }
#bar i:nth-child(1) { background: #ff5f57; } #bar i:nth-child(2) { background: #febc2e; } #bar i:nth-child(3) { background: #28c840; }
#shot { display: block; }
</style></head><body><div id="canvas"><div id="bg"><img id="bg-image" alt=""></div><div id="window"><div id="bar"><i></i><i></i><i></i></div><img id="shot" alt=""></div></div></body></html>`;

type Layout = {
  canvasWidth: number;
  canvasHeight: number;
  margin: number;
  bar: number;
  shotWidth: number;
  shotHeight: number;
  radius: number;
  frame: 'light' | 'dark' | null;
  shadow: boolean;
};

/** Composes a screenshot onto a background (with its CSS filter) with margin, optional browser frame and border radius; returns the final image in the requested type. `page` is a fresh page in the render's isolated context, yours to use. */
export async function composeOverlay(
  page: Page,
  shot: OverlayShot,
  overlay: OverlayOptions,
  out: OverlayTarget,
  options: ComposeOptions = {},
): Promise<Buffer> {
  const transparent = out.omitBackground === true && out.type !== 'jpeg';
  const background = backgroundOf(overlay.background, transparent);
  const filter = overlay.filter ?? null;
  const frame = overlay.browser === 'light' || overlay.browser === 'dark' ? overlay.browser : null;
  const scale = shot.scale && Number.isFinite(shot.scale) && shot.scale > 0 ? shot.scale : 1;
  const margin = nonNegative(overlay.margin, DEFAULT_MARGIN);
  const bar = frame ? FRAME_BAR_HEIGHT : 0;
  const shotWidth = shot.width / scale;
  const shotHeight = shot.height / scale;
  const layout: Layout = {
    canvasWidth: Math.ceil(shotWidth + 2 * margin),
    canvasHeight: Math.ceil(shotHeight + bar + 2 * margin),
    margin,
    bar,
    shotWidth,
    shotHeight,
    radius: nonNegative(overlay.screenshotBorderRadius, frame ? FRAMED_DEFAULT_RADIUS : 0),
    frame,
    // A shadow needs room to fall into; with no margin it would only darken the edge.
    shadow: margin >= 8,
  };
  if (Math.round(layout.canvasWidth * scale) > MAX_IMAGE_PIXELS || Math.round(layout.canvasHeight * scale) > MAX_IMAGE_PIXELS) {
    throw new PlanStepError('overlayMargin', `The image with its overlay would be larger than ${MAX_IMAGE_PIXELS} pixels`);
  }

  const allowUrl = options.allowUrl ?? isPublicHttpUrl;
  await page.setRequestInterception(true);
  page.on('request', (request: HTTPRequest) => void decide(request, allowUrl));
  await page.setJavaScriptEnabled(true);
  await page.setViewport({ width: layout.canvasWidth, height: layout.canvasHeight, deviceScaleFactor: scale });
  await page.setContent(TEMPLATE, { waitUntil: 'domcontentloaded', timeout: LOAD_TIMEOUT_MS });

  const shotUrl = `data:image/${shot.type};base64,${shot.data.toString('base64')}`;
  const problems = await page.evaluate(
    async (l: Layout, shotSrc: string, bg: Background, cssFilter: string | null, imageWaitMs: number) => {
      const problems: string[] = [];
      const canvas = document.getElementById('canvas') as HTMLDivElement;
      const backdrop = document.getElementById('bg') as HTMLDivElement;
      const win = document.getElementById('window') as HTMLDivElement;
      const barElement = document.getElementById('bar') as HTMLDivElement;
      const img = document.getElementById('shot') as HTMLImageElement;
      const bgImage = document.getElementById('bg-image') as HTMLImageElement;

      canvas.style.setProperty('width', `${l.canvasWidth}px`);
      canvas.style.setProperty('height', `${l.canvasHeight}px`);
      canvas.style.setProperty('padding', `${l.margin}px`);
      if (bg.kind === 'css') {
        if (CSS.supports('background', bg.value)) backdrop.style.setProperty('background', bg.value);
        else problems.push('background');
      }
      win.style.setProperty('width', `${l.shotWidth}px`);
      win.style.setProperty('height', `${l.shotHeight + l.bar}px`);
      win.style.setProperty('border-radius', `${l.radius}px`);
      if (!l.shadow || bg.kind === 'none') win.classList.add('flat');
      if (l.frame) {
        barElement.classList.add(l.frame);
        barElement.style.setProperty('height', `${l.bar}px`);
      }
      img.style.setProperty('width', `${l.shotWidth}px`);
      img.style.setProperty('height', `${l.shotHeight}px`);
      if (cssFilter !== null) {
        if (CSS.supports('filter', cssFilter)) backdrop.style.setProperty('filter', cssFilter);
        else problems.push('filter');
      }
      if (problems.length > 0) return problems;

      // Inline callbacks only: named function bindings here would pick up the test
      // transpiler's name helper, which does not exist in the page.
      if (bg.kind === 'image') {
        // Until (or unless) the image arrives the canvas shows the default gradient.
        backdrop.style.setProperty('background', 'linear-gradient(135deg, #667eea 0%, #764ba2 100%)');
      }
      const sources: Array<[HTMLImageElement, string, number]> = [[img, shotSrc, 30_000]];
      if (bg.kind === 'image') sources.push([bgImage, bg.url, imageWaitMs]);
      const waits = sources.map(
        ([image, src, waitMs]) =>
          new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(false), waitMs);
            image.onload = () => {
              clearTimeout(timer);
              resolve(true);
            };
            image.onerror = () => {
              clearTimeout(timer);
              resolve(false);
            };
            image.src = src;
          }),
      );
      if (waits[1]) void waits[1].then((ok) => ok && bgImage.style.setProperty('display', 'block'));
      const [shotLoaded] = await Promise.all(waits);
      if (!shotLoaded) return ['shot'];
      await Promise.all([img.decode().catch(() => undefined), bg.kind === 'image' ? bgImage.decode().catch(() => undefined) : undefined]);
      return [];
    },
    layout,
    shotUrl,
    background,
    filter,
    BACKGROUND_IMAGE_WAIT_MS,
  );
  if (problems.includes('background')) {
    throw new PlanStepError('overlayBackground', 'Not a valid CSS colour, gradient or image URL');
  }
  if (problems.includes('filter')) throw new PlanStepError('overlayFilter', 'Not a valid CSS filter');
  if (problems.includes('shot')) throw new RenderError('The screenshot could not be decoded for the overlay');

  try {
    const data = await page.screenshot({
      type: out.type,
      ...(out.type !== 'png' && out.quality !== undefined ? { quality: out.quality } : {}),
      omitBackground: transparent,
      captureBeyondViewport: false,
      fromSurface: true,
    });
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  } catch (error) {
    throw new RenderError('Capturing the overlay failed', { cause: error });
  }
}

/** The overlay page loads data: URLs freely and http(s) only where `allowUrl` agrees (the background image and its redirects). */
async function decide(request: HTTPRequest, allowUrl: (url: string) => boolean | Promise<boolean>): Promise<void> {
  const url = request.url();
  try {
    if (url.startsWith('data:')) {
      await request.continue();
      return;
    }
    if ((url.startsWith('http://') || url.startsWith('https://')) && (await allowUrl(url))) {
      await request.continue();
      return;
    }
    await request.abort('accessdenied');
  } catch {
    // The page closed or the request was already handled.
  }
}
