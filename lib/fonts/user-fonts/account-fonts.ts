/**
 * The account's fonts for a render, filled in at the edge where the account is known: the faces (the font
 * list, kept a short while per environment) and where their bytes come from (the environment's font cache).
 */
import { createHash } from 'node:crypto';
import type { PageFontFace, PageFontsPlan } from './page-fonts.js';
import { createFontCache, type FontCache } from './font-cache.js';
import type { FontStore } from './font-store.js';

/**
 * How long an environment uses an account's font list before reading it again: a font
 * uploaded or deleted is seen by renders within this, and a render usually reads no table for fonts.
 */
export const FONT_LIST_TTL_MS = 30_000;

/** Accounts whose font lists an environment keeps (beyond, it forgets them all: they only save a query). */
const LISTS_KEPT = 1_000;

type Lists = Map<string, { at: number; faces: Promise<PageFontFace[]> }>;
const perStore = new WeakMap<FontStore, { lists: Lists; cache: FontCache }>();

/** The environment's font lists and bytes cache over `store` (one per store, made on first use). */
function environmentOf(store: FontStore) {
  let environment = perStore.get(store);
  if (!environment) {
    environment = { lists: new Map(), cache: createFontCache((face) => store.readBytes(face)) };
    perStore.set(store, environment);
  }
  return environment;
}

/** The font bytes cache of the environment over `store`: how many reads it made (tests, logs). */
export function fontCacheOf(store: FontStore): FontCache {
  return environmentOf(store).cache;
}

/** The account's fonts as the pages of a render get them, or undefined when it has none. */
export async function accountFonts(store: FontStore, accountId: string, now = Date.now()): Promise<PageFontsPlan | undefined> {
  const { lists, cache } = environmentOf(store);
  let entry = lists.get(accountId);
  if (!entry || now - entry.at > FONT_LIST_TTL_MS) {
    if (lists.size >= LISTS_KEPT) lists.clear();
    const faces = store.list(accountId).then((fonts) =>
      fonts.map((font): PageFontFace => ({ id: font.id, family: font.family, weight: font.weight, style: font.style, format: font.format, sha256: font.sha256 })),
    );
    entry = { at: now, faces };
    lists.set(accountId, entry);
    faces.catch(() => lists.delete(accountId));
  }
  const faces = await entry.faces;
  if (faces.length === 0) return undefined;
  return {
    key: createHash('sha256').update(JSON.stringify([accountId, faces.map((face) => [face.id, face.sha256])])).digest('hex').slice(0, 32),
    faces,
    bytes: (face) => cache.bytes(accountId, face),
  };
}
