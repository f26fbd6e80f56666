/**
 * The defaults of the render options, stated once: the request schemas
 * document them in the OpenAPI document (render-options.ts reads this table)
 * and the render plan applies them (lib/plan/build-plan.ts reads it too), so
 * the document cannot say one thing while the service does another.
 */
import { PREVIEW_DEFAULTS } from '../finishing/images/preview-options.js';
import { COMPRESS_DEFAULTS } from '../finishing/steps/compress/definition.js';
import { PERMISSION_DEFAULTS } from '../finishing/steps/protect/definition.js';
import { WATERMARK_DEFAULTS } from '../finishing/steps/stamp/definition.js';
import { DEFAULT_DEVICE } from './devices.js';

/** What an option the caller left out (or sent as null) means, per object of the request. */
export const RENDER_DEFAULTS = {
  page: {
    waitUntil: 'auto',
    adblock: true,
    javascript: true,
  },
  screenshot: {
    type: 'png',
    device: DEFAULT_DEVICE.name,
    fullPage: false,
    fromSurface: true,
    omitBackground: false,
    optimizeForSpeed: true,
    /**
     * interface.md: "Default false. Described as false when there is no clip
     * and true otherwise" (puppeteer's own rule, where a full-page capture is
     * a clip of the whole page). A capture of the viewport cannot reach
     * beyond it, so there the value has no effect.
     */
    captureBeyondViewport: { viewport: false, clip: true, fullPage: true },
  },
  pdf: {
    scale: 1,
    displayHeaderFooter: false,
    printBackground: false,
    landscape: false,
    format: 'letter',
    preferCSSPageSize: false,
    omitBackground: false,
    outline: false,
    tagged: false,
  },
  /** `pdf.watermark`, the look of the stamp (issue 23; the stamp step's definition states them). */
  watermark: WATERMARK_DEFAULTS,
  /** `pdf.compress` given as `true` or with fields left out (issue 34; the compress step's definition). */
  compress: COMPRESS_DEFAULTS,
  /** `pdf.preview` with fields left out (issue 34): a thumbnail a list shows. */
  preview: PREVIEW_DEFAULTS,
  /** `pdf.protection.permissions`: an unset permission is allowed, as readers assume without encryption. */
  protectionPermissions: PERMISSION_DEFAULTS,
  webhook: {
    receiveType: 'URL',
    method: 'POST',
  },
} as const;

/** How the OpenAPI document describes `screenshot.captureBeyondViewport`'s default, from the table. */
export const CAPTURE_BEYOND_VIEWPORT_DEFAULTS = `Default ${RENDER_DEFAULTS.screenshot.captureBeyondViewport.viewport} when there is no clip, ${RENDER_DEFAULTS.screenshot.captureBeyondViewport.clip} with a clip (and with fullPage, which is captured as a clip of the whole page).`;
