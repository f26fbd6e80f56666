/**
 * The warm environment's copy of the accounts' fonts: each font's bytes read
 * from S3 on its first use and kept by account, font and content hash (a font
 * deleted and another uploaded under the same id could never be served from
 * an old entry), so a render pays for a font's read once per environment.
 */
import type { PageFontFace } from './page-fonts.js';

/** Where the bytes of a font not yet cached are read from (the font store's `readBytes`). */
export type FontBytesSource = (face: { accountId: string; id: string; format: 'ttf' | 'otf' }) => Promise<Uint8Array | undefined>;

/** What an environment keeps at most: a few accounts' brand families; the least recently used go first. */
export const FONT_CACHE_BYTES = 64 * 1024 * 1024;

export type FontCache = {
  /** The face's bytes, read from the source on the first call only (concurrent first calls share one read). */
  bytes(accountId: string, face: PageFontFace): Promise<Uint8Array | undefined>;
  /** Reads from the source so far (what the time of renders paid for fonts). */
  readonly reads: number;
};

/** A cache of font bytes over `source`, holding at most `maxBytes`. */
export function createFontCache(source: FontBytesSource, maxBytes = FONT_CACHE_BYTES): FontCache {
  const entries = new Map<string, Promise<Uint8Array | undefined>>();
  const sizes = new Map<string, number>();
  let held = 0;
  let reads = 0;
  const evict = () => {
    for (const key of entries.keys()) {
      if (held <= maxBytes) return;
      held -= sizes.get(key) ?? 0;
      sizes.delete(key);
      entries.delete(key);
    }
  };
  return {
    get reads() {
      return reads;
    },
    bytes(accountId, face) {
      const key = `${accountId}/${face.id}/${face.sha256}`;
      const cached = entries.get(key);
      if (cached) {
        // Most recently used last: the oldest is evicted first.
        entries.delete(key);
        entries.set(key, cached);
        return cached;
      }
      reads += 1;
      const loading = source({ accountId, id: face.id, format: face.format }).then((bytes) => {
        // Gone (deleted meanwhile), or not the bytes the record names: not kept, not served.
        if (!bytes || bytes.length === 0) {
          entries.delete(key);
          return undefined;
        }
        sizes.set(key, bytes.length);
        held += bytes.length;
        evict();
        return bytes;
      });
      entries.set(key, loading);
      // A failed read is not kept: the next render reads again.
      loading.catch(() => entries.delete(key));
      return loading;
    },
  };
}
