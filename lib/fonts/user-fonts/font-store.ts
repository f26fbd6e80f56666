import type { FontUploadFormat, SfntFormat } from './font-file.js';

/** A font one account uploaded: what a page names it by, and what identifies its bytes. */
export type UserFont = {
  id: string;
  accountId: string;
  family: string;
  /** 1–1000, as CSS's font-weight. */
  weight: number;
  style: 'normal' | 'italic';
  /** The format it is kept (and served to Chromium) in. */
  format: SfntFormat;
  /** The format it was uploaded in. */
  uploaded: FontUploadFormat;
  /** SHA-256 of the kept bytes, hex: part of every cache key of them. */
  sha256: string;
  /** Size of the kept bytes. */
  bytes: number;
  numGlyphs: number;
  createdAt: string;
};

/**
 * Port: where an account's fonts live, the record and the bytes apart. Every
 * call is scoped by account, so another account's font is indistinguishable
 * from one that does not exist.
 */
export interface FontStore {
  /** Keeps the bytes, then the record (a record never names bytes that are not there). */
  create(font: UserFont, sfnt: Uint8Array): Promise<void>;
  /** The font, or undefined when this account has no font with that id. */
  get(accountId: string, id: string): Promise<UserFont | undefined>;
  /** Every font of the account, oldest first (at most MAX_FONTS_PER_ACCOUNT, so one page). */
  list(accountId: string): Promise<UserFont[]>;
  /** Removes the record and then the bytes; resolves false when the account had no such font. */
  remove(accountId: string, id: string): Promise<boolean>;
  /** The kept bytes of a font, or undefined when they are gone (deleted meanwhile). */
  readBytes(font: Pick<UserFont, 'accountId' | 'id' | 'format'>): Promise<Uint8Array | undefined>;
}
