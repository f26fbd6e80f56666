/** wawoff2 (MIT) ships no types: the one call used, Google's WOFF2 decoder compiled to WebAssembly. */
declare module 'wawoff2' {
  /** The sfnt a WOFF2 file unpacks to; rejects a file the decoder cannot unpack. */
  export function decompress(woff2: Uint8Array): Promise<Uint8Array>;
  /** The WOFF2 of an sfnt (used by tests to make WOFF2 files). */
  export function compress(sfnt: Uint8Array): Promise<Uint8Array>;
}

declare module 'wawoff2/decompress.js' {
  /** The sfnt a WOFF2 file unpacks to; rejects a file the decoder cannot unpack. */
  export default function decompress(woff2: Uint8Array): Promise<Uint8Array>;
}
