import type { ChromiumMode } from '../types.js';

/** Flags of `@sparticuz/chromium` that switch off protections an untrusted page must not escape. */
const UNSAFE_FLAGS = new Set(['--disable-web-security', '--allow-running-insecure-content', '--disable-site-isolation-trials']);

/** Features `@sparticuz/chromium` disables that keep cross-site frames in separate processes. */
const ISOLATION_FEATURES = new Set(['IsolateOrigins', 'site-per-process']);

/**
 * Without these Chromium keeps calling Google services (component updates,
 * sync, safe browsing lists, QUIC probes) which, on a closed or metered
 * network, cost time and connections on every launch.
 */
const QUIET_FLAGS = [
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
];

/**
 * Headless Chromium has no popup blocker: without this a page's `window.open`
 * and `target=_blank` clicks open real windows (200 of them outlast any time
 * budget). With it they fail the way a blocked popup does (`window.open`
 * returns null), in every document, including the one `page.html` is written
 * into, which no new-document script reaches.
 */
const CONTAINMENT_FLAGS = ['--block-new-web-contents'];

/**
 * Pages are composited in software, in the renderer, rather than on
 * SwiftShader (the CPU "GPU" `@sparticuz/chromium` sets up): there, every
 * context that closes after drawing has SwiftShader clear and free its
 * surfaces, 40–50 ms of the browser's CPU per render (its worker threads
 * spin while they wait), which the post-response phase paid after every
 * answer. WebGL keeps SwiftShader (the GPU thread stays); PDFs do not
 * composite at all; screenshots differ from GPU compositing only in the
 * dithering of gradients and shadows (text and flat colours are identical).
 */
const COMPOSITING_FLAGS = ['--disable-gpu-compositing'];

/**
 * Chromium command-line flags for rendering untrusted pages: the serverless
 * flags of `@sparticuz/chromium` without its security opt-outs, plus flags that
 * keep the browser off the network when it has nothing to render.
 */
export function chromiumArgs(baseArgs: readonly string[], mode: ChromiumMode): string[] {
  const args: string[] = [];
  for (const arg of baseArgs) {
    const name = arg.split('=')[0] ?? arg;
    if (UNSAFE_FLAGS.has(name)) continue;
    // puppeteer adds its own headless flag for `headless: 'shell'`.
    if (name === '--headless') continue;
    if (name === '--single-process' && mode !== 'single-process') continue;
    if (name === '--disable-features') {
      const features = arg.slice(name.length + 1).split(',').filter((f) => f && !ISOLATION_FEATURES.has(f));
      if (features.length > 0) args.push(`--disable-features=${features.join(',')}`);
      continue;
    }
    args.push(arg);
  }
  if (mode === 'single-process' && !args.includes('--single-process')) args.push('--single-process');
  for (const flag of [...QUIET_FLAGS, ...CONTAINMENT_FLAGS, ...COMPOSITING_FLAGS]) if (!args.includes(flag)) args.push(flag);
  return args;
}
