/**
 * JPEG decoding and encoding for the compress step: MozJPEG compiled to
 * WebAssembly (@jsquash/jpeg, Apache-2.0, 420 KB of wasm). Chosen over the
 * service's Chromium (every image would cross the DevTools protocol as
 * base64 twice, and canvas premultiplies and colour-manages the samples),
 * over sharp (a native libvips, LGPL-3.0, per CPU architecture in the Lambda
 * package) and over pure-JS encoders (jpeg-js: baseline 4:4:4 only, no
 * trellis quantisation). MozJPEG makes the smallest JPEG at a given quality.
 * The modules compile with the first compressed render, once per process.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

type Pixels = { data: Uint8ClampedArray; width: number; height: number };
type Codec = {
  encode: (image: Pixels, options: Record<string, unknown>) => Promise<ArrayBuffer>;
  decode: (jpeg: ArrayBuffer) => Promise<Pixels>;
};

let codec: Promise<Codec> | undefined;

async function loadCodec(): Promise<Codec> {
  const require = createRequire(import.meta.url);
  const [encoder, decoder, encoderWasm, decoderWasm] = await Promise.all([
    import('@jsquash/jpeg/encode.js'),
    import('@jsquash/jpeg/decode.js'),
    readFile(require.resolve('@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm')).then((bytes) => WebAssembly.compile(bytes)),
    readFile(require.resolve('@jsquash/jpeg/codec/dec/mozjpeg_dec.wasm')).then((bytes) => WebAssembly.compile(bytes)),
  ]);
  await Promise.all([encoder.init(encoderWasm), decoder.init(decoderWasm)]);
  return {
    encode: (image, options) => encoder.default(image as unknown as ImageData, options),
    decode: (jpeg) => decoder.default(jpeg) as Promise<Pixels>,
  };
}

const getCodec = () => {
  codec ??= loadCodec();
  codec.catch(() => (codec = undefined));
  return codec;
};

/** Samples of an image, `channels` (1 or 3) bytes a pixel, row after row. */
export type Samples = { data: Uint8Array; width: number; height: number; channels: 1 | 3 };

/** The samples of a JPEG (grey or RGB as stored; CMYK is not asked of it). */
export async function decodeJpeg(jpeg: Uint8Array, channels: 1 | 3): Promise<Samples> {
  const { decode } = await getCodec();
  const copy = new Uint8Array(jpeg).buffer;
  const rgba = await decode(copy);
  const pixels = rgba.width * rgba.height;
  const data = new Uint8Array(pixels * channels);
  for (let i = 0, o = 0; i < pixels; i += 1) {
    if (channels === 1) data[o++] = rgba.data[i * 4] as number;
    else {
      data[o++] = rgba.data[i * 4] as number;
      data[o++] = rgba.data[i * 4 + 1] as number;
      data[o++] = rgba.data[i * 4 + 2] as number;
    }
  }
  return { data, width: rgba.width, height: rgba.height, channels };
}

/** A baseline-compatible progressive JPEG of the samples at `quality` (1–100), chroma subsampled 4:2:0 as Ghostscript and cameras do. */
export async function encodeJpeg(samples: Samples, quality: number): Promise<Uint8Array> {
  const { encode } = await getCodec();
  const { width, height, channels } = samples;
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let i = 0, s = 0; i < width * height; i += 1) {
    const r = samples.data[s] as number;
    const g = channels === 3 ? (samples.data[s + 1] as number) : r;
    const b = channels === 3 ? (samples.data[s + 2] as number) : r;
    s += channels;
    rgba[i * 4] = r;
    rgba[i * 4 + 1] = g;
    rgba[i * 4 + 2] = b;
    rgba[i * 4 + 3] = 255;
  }
  // MozJpegColorSpace: 1 grayscale, 3 YCbCr. chroma_subsample applies only without auto_subsample, whose
  // choice is 4:2:2 (2×1): 4:2:0 makes pdf.js's cmykjpeg image 13% smaller, at the same grey likeness.
  const out = await encode({ data: rgba, width, height }, { quality, color_space: channels === 1 ? 1 : 3, progressive: true, auto_subsample: false, chroma_subsample: 2 });
  return new Uint8Array(out);
}

let pdfJsJpeg: Promise<typeof import('pdfjs-dist/image_decoders/pdf.image_decoders.mjs').JpegImage> | undefined;

/**
 * The CMYK samples of a four-component JPEG, as a PDF reader takes them: by
 * PDF.js's baseline/progressive decoder (pdfjs-dist, already shipped for page
 * images; MozJPEG's build decodes to RGBA only, and refuses CMYK), YCCK
 * turned back into CMYK, and the image's /Decode (`invert`: [1 0 1 0 …], as
 * Photoshop's inverted Adobe CMYK JPEGs carry) applied. Undefined when the
 * file is not a CMYK JPEG of the declared size.
 */
export async function decodeCmykJpeg(jpeg: Uint8Array, width: number, height: number, invert: boolean, colorTransform?: number): Promise<Uint8Array | undefined> {
  pdfJsJpeg ??= import('pdfjs-dist/image_decoders/pdf.image_decoders.mjs').then((module) => module.JpegImage);
  const JpegImage = await pdfJsJpeg;
  const image = new JpegImage({
    ...(invert ? { decodeTransform: new Int32Array([-256, 255, -256, 255, -256, 255, -256, 255]) } : {}),
    ...(colorTransform != null ? { colorTransform } : {}),
  });
  try {
    image.parse(jpeg);
  } catch {
    return undefined;
  }
  if (image.numComponents !== 4 || image.width !== width || image.height !== height) return undefined;
  const data = image.getData({ width, height, isSourcePDF: true });
  return data.length === width * height * 4 ? data : undefined;
}
