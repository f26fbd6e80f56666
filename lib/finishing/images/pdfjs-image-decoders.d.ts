// pdfjs-dist ships no types for its image decoders; this is the part of its JPEG decoder the compress step uses.
declare module 'pdfjs-dist/image_decoders/pdf.image_decoders.mjs' {
  export class JpegImage {
    constructor(options?: { decodeTransform?: Int32Array; colorTransform?: number });
    parse(data: Uint8Array): void;
    numComponents: number;
    width: number;
    height: number;
    getData(options: { width: number; height: number; isSourcePDF: boolean }): Uint8Array;
  }
}
