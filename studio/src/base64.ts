/** Base64 of bytes, as the API takes files (a font's `file`). */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Base64 of a string's UTF-8 bytes, as the API takes HTML. */
export function encodeBase64(text: string): string {
  return bytesToBase64(new TextEncoder().encode(text));
}

/** The text a base64 field holds (UTF-8); the raw string when it is not base64. */
export function decodeBase64(encoded: string): string {
  try {
    const binary = atob(encoded.replace(/\s+/g, ''));
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
  } catch {
    return encoded;
  }
}
