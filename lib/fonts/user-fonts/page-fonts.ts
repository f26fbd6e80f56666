/** One of the account's fonts as a page gets it: the family, weight and style it answers to, and what identifies its bytes. */
export type PageFontFace = { id: string; family: string; weight: number; style: 'normal' | 'italic'; format: 'ttf' | 'otf'; sha256: string };

/**
 * The account's fonts for one render (lib/fonts/user-fonts/account-fonts.ts reads it, lib/plan/with-account-fonts.ts gives it to the pages, at the edge, where the
 * account is known): the faces, and where their bytes come from (the warm environment's cache, filled from S3).
 */
export type PageFontsPlan = {
  /** The account's fonts are cached by this key (the faces' ids and hashes): a drawing made with them is kept under it. */
  key: string;
  faces: PageFontFace[];
  bytes(face: PageFontFace): Promise<Uint8Array | undefined>;
};
