/**
 * Builds the template studio (the page served at `/`) from `studio/src` into
 * `studio/dist`: one minified ES module bundle (CodeMirror 6, pdf.js and our
 * code), its stylesheet, pdf.js's worker and the HTML page. Run by npm's
 * `prepare` (so `npm ci` leaves a packaged-ready build) and, when the sources
 * are newer than the build, by the studio function itself under `npm start`.
 * The output is not committed.
 *
 *   npm run build:studio
 */
import { copyFile, mkdir, readdir, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const studioDir = fileURLToPath(new URL('.', import.meta.url));
export const STUDIO_DIST = fileURLToPath(new URL('./dist/', import.meta.url));
const PDF_WORKER = fileURLToPath(new URL('../node_modules/pdfjs-dist/build/pdf.worker.min.mjs', import.meta.url));

/** The files `studio/dist` holds, as the studio function serves them under `/studio/`. */
export const STUDIO_FILES = ['index.html', 'studio.js', 'studio.css', 'pdf.worker.mjs'] as const;

/** Builds `studio/dist` from the sources. */
export async function buildStudio(): Promise<void> {
  await mkdir(STUDIO_DIST, { recursive: true });
  await build({
    // main.ts imports studio.css, so esbuild writes studio.css beside studio.js.
    entryPoints: { studio: `${studioDir}src/main.ts` },
    outdir: STUDIO_DIST,
    entryNames: '[name]',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari17'],
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  await copyFile(`${studioDir}src/index.html`, `${STUDIO_DIST}index.html`);
  await copyFile(PDF_WORKER, `${STUDIO_DIST}pdf.worker.mjs`);
}

/** Whether a source file changed after the last build (or there is none). */
export async function studioBuildIsStale(): Promise<boolean> {
  const built = await stat(`${STUDIO_DIST}studio.js`).then((s) => s.mtimeMs, () => 0);
  if (built === 0) return true;
  const sources = await readdir(`${studioDir}src`);
  for (const name of sources) {
    if ((await stat(`${studioDir}src/${name}`)).mtimeMs > built) return true;
  }
  return false;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildStudio();
  console.log(`studio built into ${STUDIO_DIST}`);
}
