/** An account font store in memory (the FontStore port), every read of a file counted: what S3 would be asked. */
import type { FontStore, UserFont } from '../../lib/fonts/user-fonts/font-store.js';

export function memoryFontStore(): { store: FontStore; reads: () => number } {
  const fonts: Array<{ font: UserFont; sfnt: Uint8Array }> = [];
  let reads = 0;
  const find = (accountId: string, id: string) => fonts.findIndex((f) => f.font.accountId === accountId && f.font.id === id);
  const store: FontStore = {
    async create(font, sfnt) {
      fonts.push({ font, sfnt });
    },
    async get(accountId, id) {
      return fonts[find(accountId, id)]?.font;
    },
    async list(accountId) {
      return fonts.filter((f) => f.font.accountId === accountId).map((f) => f.font);
    },
    async remove(accountId, id) {
      const at = find(accountId, id);
      if (at < 0) return false;
      fonts.splice(at, 1);
      return true;
    },
    async readBytes(font) {
      reads += 1;
      return fonts[find(font.accountId, font.id)]?.sfnt;
    },
  };
  return { store, reads: () => reads };
}
