// The bounds of page images, without the code that draws them (page-images.ts): the request schemas state them.

/** Most page images one request makes. */
export const MAX_PAGE_IMAGES = 100;
/** Most pixels in one page image (an A3 page at 300 dpi has 17.4 million). */
export const MAX_PAGE_IMAGE_PIXELS = 25_000_000;
