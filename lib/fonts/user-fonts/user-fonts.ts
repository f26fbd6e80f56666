import { NotFoundError, ValidationError } from '../../errors.js';
import { FontFileError } from './errors.js';
import { readFontFile } from './font-file.js';
import { isFontId, newFontId } from './font-ids.js';
import { MAX_FONTS_PER_ACCOUNT } from './font-limits.js';
import type { FontStore, UserFont } from './font-store.js';

/** The code of a 400 whose font file cannot be used (its field says why). */
export const FONT_FILE_CODE = 'font.file';

/** An upload as the endpoint read it: the file's bytes, which field carried them, and the family asked for. */
export type FontUpload = { bytes: Uint8Array; field: string; family?: string };

/**
 * Checks an uploaded font (font-file.ts) and keeps it for `accountId`: a 400
 * naming the file's field when it cannot be used, a 400 on it too when the
 * account already has MAX_FONTS_PER_ACCOUNT fonts. (Two uploads racing past the
 * count can keep one font more: the limit is there against accumulation, not to the unit.)
 */
export async function createFont(store: FontStore, accountId: string, upload: FontUpload, now = new Date()): Promise<UserFont> {
  let file;
  try {
    file = await readFontFile(upload.bytes, upload.family !== undefined ? { family: upload.family } : {});
  } catch (error) {
    if (!(error instanceof FontFileError)) throw error;
    const field = upload.family !== undefined && /family/.test(error.message) ? 'family' : upload.field;
    throw new ValidationError({ [field]: error.message }, { message: 'The font cannot be used', code: FONT_FILE_CODE, cause: error });
  }
  if ((await store.list(accountId)).length >= MAX_FONTS_PER_ACCOUNT) {
    throw new ValidationError({ [upload.field]: `An account keeps at most ${MAX_FONTS_PER_ACCOUNT} fonts: delete one first` }, { message: 'Too many fonts', code: FONT_FILE_CODE });
  }
  const font: UserFont = {
    id: newFontId(now.getTime()),
    accountId,
    family: file.family,
    weight: file.weight,
    style: file.style,
    format: file.format,
    uploaded: file.uploaded,
    sha256: file.sha256,
    bytes: file.sfnt.length,
    numGlyphs: file.numGlyphs,
    createdAt: now.toISOString(),
  };
  await store.create(font, file.sfnt);
  return font;
}

/** The account's font, or NotFoundError (also for another account's id). */
export async function getFont(store: FontStore, accountId: string, id: string): Promise<UserFont> {
  const font = isFontId(id) ? await store.get(accountId, id) : undefined;
  if (!font) throw new NotFoundError('Font not found');
  return font;
}

/** Deletes the account's font, or NotFoundError. */
export async function deleteFont(store: FontStore, accountId: string, id: string): Promise<void> {
  const removed = isFontId(id) ? await store.remove(accountId, id) : false;
  if (!removed) throw new NotFoundError('Font not found');
}

/** The API's view of a font (the owner is implicit). */
export function fontResponse(font: UserFont) {
  return {
    id: font.id,
    family: font.family,
    weight: font.weight,
    style: font.style,
    format: font.format,
    uploadedAs: font.uploaded,
    bytes: font.bytes,
    glyphs: font.numGlyphs,
    sha256: font.sha256,
    createdAt: font.createdAt,
  };
}
