/**
 * The stated limits of user fonts (issue 46), read by the checks, the
 * OpenAPI document and the docs alike, so the three cannot disagree.
 */

/** A font file as uploaded (any of TTF, OTF, WOFF, WOFF2): brand fonts are tens to hundreds of KB, a whole CJK face 10–20 MB. */
export const MAX_FONT_FILE_BYTES = 20 * 1024 * 1024;

/**
 * The font once decoded to plain TrueType/OpenType (what a WOFF or WOFF2 says it
 * unpacks to, checked before anything is unpacked): the WOFF2 reference decoder's
 * own ceiling (woff2's kDefaultMaxSize).
 */
export const MAX_SFNT_BYTES = 30 * 1024 * 1024;

/** Fonts one account may keep: a brand's families in their weights and styles, with room. */
export const MAX_FONTS_PER_ACCOUNT = 50;

/** A family name (given or read from the font's `name` table). */
export const MAX_FAMILY_CHARACTERS = 100;

/** Tables in one font: the OpenType registry names about 50; a file declaring thousands is not a font. */
export const MAX_FONT_TABLES = 200;
