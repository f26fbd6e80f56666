/** Largest screenshot edge in device pixels (Chromium's maximum texture size): what the schemas allow and the capture and overlay keep within. */
export const MAX_IMAGE_PIXELS = 16_384;
