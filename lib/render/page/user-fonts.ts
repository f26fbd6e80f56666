/**
 * The account's own fonts in a page (issue 46): each becomes a `FontFace` in
 * the document's font set, added by a new-document script before the page's
 * own scripts run, so a page names it in CSS by family with no `@font-face`.
 * Its URL is on a host that never resolves (`.invalid`), under a nonce of this
 * render: the session's request handler answers it from the plan's fonts and
 * refuses any other nonce, so a URL seen by one render (Blink's memory cache
 * is shared within a renderer process under --single-process) serves nothing
 * to another. Web fonts rather than fontconfig: fontconfig's set is the whole
 * browser's, read at launch, where one tenant's fonts would be every tenant's.
 * A font is fetched only when text uses its family. A page whose own CSP
 * restricts `font-src` refuses these URLs: its text falls back to the layer's fonts.
 */
import { randomBytes } from 'node:crypto';
import type { PageSession, UserFontsPolicy } from '../browser/browser-session.js';
import { USER_FONTS_ORIGIN } from '../browser/browser-session.js';
import type { PageFontsPlan } from '../../fonts/user-fonts/page-fonts.js';

/** The new-document script that adds the faces, their URLs under `nonce`. Plain JavaScript in a string, as settle.ts's. */
export function fontFacesSource(fonts: PageFontsPlan, nonce: string): string {
  const faces = fonts.faces.map((face) => ({ family: face.family, url: `${USER_FONTS_ORIGIN}/${nonce}/${face.id}`, weight: String(face.weight), style: face.style }));
  return `(() => {
  const faces = ${JSON.stringify(faces)};
  for (const face of faces) {
    try {
      document.fonts.add(new FontFace(face.family, 'url("' + face.url + '")', { weight: face.weight, style: face.style, display: 'block' }));
    } catch (error) {}
  }
})()`;
}

/**
 * Offers the plan's fonts to the session's page: the request handler learns
 * this render's nonce and how to answer it, every new document gets the
 * faces, and so does the blank document HTML is written into (no navigation
 * creates it, so no new-document script runs in it).
 */
export async function offerUserFonts(session: PageSession, fonts: PageFontsPlan | undefined, writesIntoBlank: boolean): Promise<void> {
  if (!fonts || fonts.faces.length === 0) return;
  const nonce = randomBytes(16).toString('hex');
  const byId = new Map(fonts.faces.map((face) => [face.id, face]));
  const policy: UserFontsPolicy = {
    nonce,
    serve: async (id) => {
      const face = byId.get(id);
      const bytes = face ? await fonts.bytes(face) : undefined;
      return face && bytes ? { bytes, contentType: face.format === 'otf' ? 'font/otf' : 'font/ttf' } : undefined;
    },
  };
  session.policy.userFonts = policy;
  const source = fontFacesSource(fonts, nonce);
  await Promise.all([session.page.evaluateOnNewDocument(source), writesIntoBlank ? session.page.evaluate(source) : undefined]);
}
