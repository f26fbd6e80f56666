/**
 * The `compress` finishing step (issue 34): what no reader shows is dropped
 * first (private data, thumbnails, objects nothing reaches), so that nothing
 * is decoded for it; then images drawn larger than needed
 * are downsampled to the plan's dpi at the size they are shown, re-encoded as
 * JPEG when they have no transparency (an image with a soft mask keeps it, and
 * its own samples, lossless), and kept as they were when that would not make
 * them smaller; then, always, identical streams (images, fonts, ICC profiles)
 * are stored once and objects nothing reaches are dropped; the save writes
 * object streams (finish-pdf.ts). An image it cannot decode safely (CMYK,
 * Indexed, 16-bit, JBIG2, JPX, a /Decode array, a colour-key mask) is left
 * untouched.
 */
import { createHash } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import { PDFArray, PDFDict, type PDFDocument, PDFName, PDFNumber, type PDFObject, PDFRawStream, PDFRef, PDFStream } from '@cantoo/pdf-lib';
import type { DocumentBudget } from '../../../budget/document-budget.js';
import { contentUsage, type DrawnSize } from './content-images.js';
import { dropUnreachable } from '../../objects/document-objects.js';
import type { DocumentEdit } from '../../pipeline/step-types.js';
import { subsetFonts } from './font-subset.js';
import { joinTextRuns } from './text-runs.js';
import type { CompressPlan } from '../../pipeline/finishing-plan.js';
import { decodeCmykJpeg, decodeJpeg, encodeJpeg, type Samples } from '../../images/jpeg-codec.js';
import { mediaBox } from '../../../pdf/page-box.js';
import { readImageHeader } from '../../../input/image-header.js';

/**
 * Largest image the step decodes, in pixels, checked on the declared size
 * before decoding: beyond, it is left as it is. A 50-megapixel camera photo
 * decodes to 200 MB of RGBA in the codec's WebAssembly memory, which stays
 * reserved in the warm instance, beside 150 MB of samples.
 */
export const MAX_COMPRESS_PIXELS = 50_000_000;

const name = (value: string) => PDFName.of(value);

/** The step for the plan: an edit of the open document whose save writes object streams. */
export function compressStep(plan: CompressPlan): DocumentEdit {
  return { compact: true, edit: (doc, budget) => compressDocument(doc, plan, budget) };
}

/**
 * Compresses the open document in place, as `compressStep` describes,
 * spending from `budget`: its walks and loops check the deadline, the images
 * it decodes count their pixels against the document's total.
 */
export async function compressDocument(doc: PDFDocument, plan: CompressPlan, budget: DocumentBudget): Promise<void> {
  // What no reader shows goes first, and with it every object only it reached: an image nothing reaches is
  // never decoded (it cost full CPU when dropped after), and the walks below read only what is kept.
  dropPrivateData(doc, budget);
  dropUnreachable(doc, { budget });
  const usage = contentUsage(doc, budget);
  const drawn = usage.images;
  const pageBound = largestPage(doc, budget);
  const keepCmyk = cmykIntent(doc);
  const softMasks = new Set<PDFRef>();
  const images: Array<[PDFRef, PDFStream]> = [];
  for (const [ref, object] of doc.context.enumerateIndirectObjects()) {
    budget.check();
    if (!(object instanceof PDFStream) || object.dict.get(name('Subtype')) !== name('Image')) continue;
    images.push([ref, object]);
    const mask = object.dict.get(name('SMask'));
    if (mask instanceof PDFRef) softMasks.add(mask);
  }
  for (const [ref, image] of images) {
    budget.check();
    // A soft mask is rewritten with the image it belongs to, at its size.
    if (softMasks.has(ref)) continue;
    await compressImage(doc, ref, image, drawn.get(ref) ?? pageBound, plan, keepCmyk, budget);
  }
  joinTextRuns(doc, budget);
  flateUnfiltered(doc, budget);
  storeIdenticalOnce(doc, budget);
  storeIdenticalOnce(doc, budget);
  subsetFonts(doc, usage, budget);
  dropUnreachable(doc, { budget });
}

/**
 * XMP properties an authoring application keeps for itself, which Ghostscript
 * drops with the rest of the packet: page thumbnails, edit history, the
 * manifest and pantry of placed files, ancestors' IDs, Illustrator's swatch
 * palette and plate names (57 swatches of pdf.js's cmykjpeg.pdf were 1.8 KB
 * compressed, a quarter of Ghostscript's whole file). Identification, dates,
 * titles and PDF/A's properties stay.
 */
const XMP_PRIVATE = ['xmp:Thumbnails', 'xmpMM:History', 'xmpMM:Manifest', 'xmpMM:Ingredients', 'xmpMM:Pantry', 'photoshop:DocumentAncestors', 'xmpTPg:SwatchGroups', 'xmpTPg:PlateNames'];

/** An opening tag of one of XMP_PRIVATE: each position tries a fixed set of literals, so the search is linear. */
const XMP_PRIVATE_OPENING = new RegExp(`<(${XMP_PRIVATE.join('|')})(?=[\\s/>])`, 'g');

const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);

/**
 * The XMP without XMP_PRIVATE's elements: each from its opening tag to its
 * self-closing end or to the first closing tag of its name, in one pass. A
 * regular expression with a lazy body (`<x>[\s\S]*?</x>`) rescans to the end
 * of the packet from every opening that is never closed, quadratic on a
 * caller's packet of many; here an element found unclosed is not searched
 * for again, and the next `>` is found once for every opening before it.
 */
export function withoutPrivateXmp(xmp: string): string {
  const parts: string[] = [];
  const unclosed = new Set<string>();
  let kept = 0;
  let nextGreater = -1;
  XMP_PRIVATE_OPENING.lastIndex = 0;
  for (let match = XMP_PRIVATE_OPENING.exec(xmp); match; match = XMP_PRIVATE_OPENING.exec(xmp)) {
    const start = match.index;
    const element = match[1] as string;
    const after = start + match[0].length;
    let end = -1;
    if (xmp[after] === '/') {
      if (xmp[after + 1] === '>') end = after + 2;
    } else {
      // The tag's end: the first `>` (attributes hold none), found again only once passed.
      if (nextGreater < after) nextGreater = xmp.indexOf('>', after);
      if (nextGreater < 0) break;
      if (isSpace(xmp[after]) && xmp[nextGreater - 1] === '/') end = nextGreater + 1;
      else if (!unclosed.has(element)) {
        const closing = `</${element}>`;
        const at = xmp.indexOf(closing, nextGreater + 1);
        if (at < 0) unclosed.add(element);
        else end = at + closing.length;
      }
    }
    if (end < 0) continue;
    parts.push(xmp.slice(kept, start));
    kept = end;
    XMP_PRIVATE_OPENING.lastIndex = end;
  }
  parts.push(xmp.slice(kept));
  return parts.join('');
}

/**
 * Drops what no reader shows: other applications' private data (/PieceInfo,
 * Illustrator's editable copy of the artwork among it) and embedded page
 * thumbnails (/Thumb, which readers draw from the page themselves), as
 * Acrobat's optimiser and Ghostscript do.
 */
function dropPrivateData(doc: PDFDocument, budget: DocumentBudget): void {
  doc.catalog.delete(name('PieceInfo'));
  for (const page of doc.getPages()) {
    budget.check();
    page.node.delete(name('PieceInfo'));
    page.node.delete(name('Thumb'));
  }
  // The same thumbnails written into the document's XMP (xmp:Thumbnails, base64 JPEGs), and the authoring
  // application's own records there (XMP_PRIVATE): the packet keeps everything else.
  const metadataRef = doc.catalog.get(name('Metadata'));
  const metadata = metadataRef instanceof PDFRef ? doc.context.lookup(metadataRef) : undefined;
  if (!(metadataRef instanceof PDFRef) || !(metadata instanceof PDFRawStream) || metadata.dict.has(name('Filter'))) return;
  const xmp = Buffer.from(metadata.getContents()).toString('utf8');
  const trimmed = withoutPrivateXmp(xmp);
  if (trimmed === xmp) return;
  const bytes = Buffer.from(trimmed, 'utf8');
  const dict = PDFDict.fromMapWithContext(new Map(metadata.dict.entries()), doc.context);
  dict.set(name('Length'), PDFNumber.of(bytes.length));
  doc.context.assign(metadataRef, PDFRawStream.of(dict, bytes));
}

/**
 * Streams stored without any filter are Flate-compressed (lossless); the XMP
 * of a PDF/A file stays as it is (PDF/A-1 wants it unfiltered, and tools that
 * scan a file for its identification read it there).
 */
function flateUnfiltered(doc: PDFDocument, budget: DocumentBudget): void {
  for (const [ref, object] of doc.context.enumerateIndirectObjects()) {
    budget.check();
    if (!(object instanceof PDFRawStream) || object.dict.has(name('Filter'))) continue;
    const contents = object.getContents();
    if (object.dict.get(name('Type')) === name('Metadata') && Buffer.from(contents).includes('pdfaid')) continue;
    if (contents.length < 64) continue;
    const compressed = deflateSync(contents, { level: 6 });
    if (compressed.length >= contents.length) continue;
    const dict = PDFDict.fromMapWithContext(new Map(object.dict.entries()), doc.context);
    dict.set(name('Filter'), name('FlateDecode'));
    dict.delete(name('DecodeParms'));
    dict.set(name('Length'), PDFNumber.of(compressed.length));
    doc.context.assign(ref, PDFRawStream.of(dict, compressed));
  }
}

/** The largest page's media box: the bound of an image no walked content draws. A page without a usable /MediaBox is US Letter (page-box.ts). */
function largestPage(doc: PDFDocument, budget: DocumentBudget): DrawnSize {
  let width = 0;
  let height = 0;
  for (const page of doc.getPages()) {
    budget.check();
    const size = mediaBox(page);
    width = Math.max(width, size.width);
    height = Math.max(height, size.height);
  }
  return { width: width || 612, height: height || 792 };
}

/** The channels of an image's colour space the step can rewrite (1, 3, or 4 for CMYK), or undefined. */
function channelsOf(doc: PDFDocument, colorSpace: PDFObject | undefined): Channels | undefined {
  const space = colorSpace instanceof PDFRef ? doc.context.lookup(colorSpace) : colorSpace;
  if (space === name('DeviceGray')) return 1;
  if (space === name('DeviceRGB')) return 3;
  if (space === name('DeviceCMYK')) return 4;
  if (space instanceof PDFArray && space.get(0) === name('ICCBased')) {
    const profile = space.lookup(1);
    const n = profile instanceof PDFStream ? profile.dict.get(name('N')) : undefined;
    if (n instanceof PDFNumber && [1, 3, 4].includes(n.asNumber())) return n.asNumber() as Channels;
  }
  return undefined;
}

type Channels = 1 | 3 | 4;

/**
 * True when the document's output intent is a CMYK profile (a PDF/X or a
 * PDF/A file printed for press): there DeviceRGB is not allowed, so CMYK
 * images stay CMYK.
 */
function cmykIntent(doc: PDFDocument): boolean {
  const intents = doc.catalog.lookup(name('OutputIntents'));
  if (!(intents instanceof PDFArray)) return false;
  return intents.asArray().some((entry) => {
    const intent = entry instanceof PDFRef ? doc.context.lookup(entry) : entry;
    const profile = intent instanceof PDFDict ? intent.lookup(name('DestOutputProfile')) : undefined;
    return profile instanceof PDFStream && numberOf(profile.dict, 'N') === 4;
  });
}

/**
 * CMYK samples as RGB, by the polynomial fit PDF.js draws DeviceCMYK with
 * (pdf.js src/core/colorspace.js, Apache-2.0): what Ghostscript's /ebook does
 * too (ColorConversionStrategy /sRGB), an image a third lighter in bytes.
 */
function cmykToRgb(cmyk: Uint8Array, width: number, height: number): Samples {
  const pixels = width * height;
  const data = new Uint8Array(pixels * 3);
  for (let i = 0; i < pixels; i += 1) {
    const c = (cmyk[i * 4] as number) / 255;
    const m = (cmyk[i * 4 + 1] as number) / 255;
    const y = (cmyk[i * 4 + 2] as number) / 255;
    const k = (cmyk[i * 4 + 3] as number) / 255;
    const r = 255 + c * (-4.387332384609988 * c + 54.48615194189176 * m + 18.82290502165302 * y + 212.25662451639585 * k - 285.2331026137004) + m * (1.7149763477362134 * m - 5.6096736904047315 * y - 17.873870861415444 * k - 5.497006427196366) + y * (-2.5217340131683033 * y - 21.248923337353073 * k + 17.5119270841813) + k * (-21.86122147463605 * k - 189.48180835922747);
    const g = 255 + c * (8.841041422036149 * c + 60.118027045597366 * m + 6.871425592049007 * y + 31.159100130055922 * k - 79.2970844816548) + m * (-15.310361306967817 * m + 17.575251261109482 * y + 131.35250912493976 * k - 190.9453302588951) + y * (4.444339102852739 * y + 9.8632861493405 * k - 24.86741582555878) + k * (-20.737325471181034 * k - 187.80453709719578);
    const b = 255 + c * (0.8842522430003296 * c + 8.078677503112928 * m + 30.89978309703729 * y - 0.23883238689178934 * k - 14.183576799673286) + m * (10.49593273432072 * m + 63.02378494754052 * y + 50.606957656360734 * k - 112.23884253719248) + y * (0.03296041114873217 * y + 115.60384449646641 * k - 193.58209356861505) + k * (-22.33816807309886 * k - 180.12613974708367);
    data[i * 3] = Math.min(255, Math.max(0, Math.round(r)));
    data[i * 3 + 1] = Math.min(255, Math.max(0, Math.round(g)));
    data[i * 3 + 2] = Math.min(255, Math.max(0, Math.round(b)));
  }
  return { data, width, height, channels: 3 };
}

const numberOf = (dict: PDFDict, key: string) => {
  const value = dict.get(name(key));
  return value instanceof PDFNumber ? value.asNumber() : undefined;
};

/**
 * The samples of an 8-bit image stored raw, Flate (with or without PNG
 * predictors) or DCT, CMYK ones turned RGB; undefined for anything else, or
 * when the data does not match what the dictionary declares (checked before
 * any allocation).
 */
async function readSamples(stream: PDFStream, channels: Channels, budget: DocumentBudget): Promise<Samples | undefined> {
  const { dict } = stream;
  const width = numberOf(dict, 'Width') ?? 0;
  const height = numberOf(dict, 'Height') ?? 0;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1 || width * height > MAX_COMPRESS_PIXELS) return undefined;
  if (numberOf(dict, 'BitsPerComponent') !== 8 || dict.has(name('ImageMask')) || dict.has(name('Mask'))) return undefined;
  // CMYK may come inverted ([1 0 1 0 1 0 1 0], Photoshop's Adobe JPEGs): undone while reading.
  const inverted = channels === 4 && invertedDecode(dict);
  if (!inverted && !identityDecode(dict, channels)) return undefined;
  // The declared size, bounded above, is what the decoding may make (readBytes holds the data to it): counted before.
  budget.spend('pixels', width * height);
  const data = await readBytes(stream, width, height, channels, inverted, budget);
  if (!data) return undefined;
  return channels === 4 ? cmykToRgb(data, width, height) : { data, width, height, channels };
}

/** The stored samples, `channels` bytes a pixel, row after row (CMYK as four bytes, the Decode inversion undone). */
async function readBytes(stream: PDFStream, width: number, height: number, channels: Channels, inverted: boolean, budget: DocumentBudget): Promise<Uint8Array | undefined> {
  const { dict } = stream;
  if (!(stream instanceof PDFRawStream)) return undefined;
  const filter = dict.lookup(name('Filter'));
  const filters = filter instanceof PDFArray ? filter.asArray() : filter ? [filter] : [];
  const raw = stream.getContents();
  const size = width * height * channels;
  const stored = (bytes: Uint8Array) => (inverted ? bytes.map((v) => 255 - v) : bytes);
  if (filters.length === 0) return raw.length >= size ? stored(raw.subarray(0, size)) : undefined;
  if (filters.length !== 1) return undefined;
  if (filters[0] === name('DCTDecode')) {
    // The JPEG's own frame header must declare the size the dictionary does (bounded above) before a decoder sees
    // it: a frame of 65,535 × 65,535 inside a 10 × 10 image would have the decoder allocate gigabytes.
    const frame = readImageHeader(raw);
    if ('problem' in frame || frame.kind !== 'jpeg' || frame.width !== width || frame.height !== height) return undefined;
    if (channels === 4) {
      const parms = dict.lookup(name('DecodeParms'));
      const transform = parms instanceof PDFDict ? numberOf(parms, 'ColorTransform') : undefined;
      return decodeCmykJpeg(raw, width, height, inverted, transform).catch(() => undefined);
    }
    // Grey and RGB JPEGs, as declared.
    const decoded = await decodeJpeg(raw, channels).catch(() => undefined);
    return decoded && decoded.width === width && decoded.height === height ? decoded.data : undefined;
  }
  if (filters[0] !== name('FlateDecode')) return undefined;
  const parms = dict.lookup(name('DecodeParms'));
  const predictor = parms instanceof PDFDict ? (numberOf(parms, 'Predictor') ?? 1) : 1;
  if (predictor !== 1 && predictor < 10) return undefined;
  if (predictor >= 10 && parms instanceof PDFDict && ((numberOf(parms, 'Colors') ?? 1) !== channels || (numberOf(parms, 'BitsPerComponent') ?? 8) !== 8 || (numberOf(parms, 'Columns') ?? 1) !== width)) return undefined;
  const expected = predictor >= 10 ? (width * channels + 1) * height : size;
  // Its ceiling is the declared size; what it makes counts against the document's inflated bytes (a 400 past them).
  if (expected > budget.left('inflatedBytes')) budget.spend('inflatedBytes', expected);
  let inflated: Uint8Array;
  try {
    inflated = inflateSync(raw, { maxOutputLength: expected });
  } catch {
    return undefined;
  }
  budget.spend('inflatedBytes', inflated.length);
  if (inflated.length < expected) return undefined;
  return stored(predictor >= 10 ? unpredict(inflated, width * channels, height, channels, budget) : inflated.subarray(0, size));
}

/** A /Decode array that inverts every channel ([1 0 1 0 …]). */
function invertedDecode(dict: PDFDict): boolean {
  const decode = dict.lookup(name('Decode'));
  return decode instanceof PDFArray && decode.size() === 8 && decode.asArray().every((value, i) => value instanceof PDFNumber && value.asNumber() === 1 - (i % 2));
}

/** No /Decode array, or the one that maps every channel as it is ([0 1 …], as pdf-lib writes on soft masks). */
function identityDecode(dict: PDFDict, channels: number): boolean {
  const decode = dict.lookup(name('Decode'));
  if (decode == null) return true;
  if (!(decode instanceof PDFArray) || decode.size() !== channels * 2) return false;
  return decode.asArray().every((value, i) => value instanceof PDFNumber && value.asNumber() === i % 2);
}

/** Undoes PNG row predictors (ISO 32000 §7.4.4.4): one filter byte before each row. */
function unpredict(data: Uint8Array, rowBytes: number, rows: number, bpp: number, budget: DocumentBudget): Uint8Array {
  const out = new Uint8Array(rowBytes * rows);
  for (let y = 0; y < rows; y += 1) {
    budget.check();
    const type = data[y * (rowBytes + 1)] as number;
    const src = y * (rowBytes + 1) + 1;
    const row = y * rowBytes;
    for (let x = 0; x < rowBytes; x += 1) {
      const raw = data[src + x] as number;
      const left = x >= bpp ? (out[row + x - bpp] as number) : 0;
      const up = y > 0 ? (out[row - rowBytes + x] as number) : 0;
      const upLeft = y > 0 && x >= bpp ? (out[row - rowBytes + x - bpp] as number) : 0;
      let value = raw;
      if (type === 1) value = raw + left;
      else if (type === 2) value = raw + up;
      else if (type === 3) value = raw + ((left + up) >> 1);
      else if (type === 4) {
        const p = left + up - upLeft;
        const pa = Math.abs(p - left);
        const pb = Math.abs(p - up);
        const pc = Math.abs(p - upLeft);
        value = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
      }
      out[row + x] = value & 0xff;
    }
  }
  return out;
}

/** For each output pixel of an axis, the source pixels it covers and how much of each (their weights sum to 1). */
function coverage(from: number, to: number): Array<{ first: number; weights: Float64Array }> {
  const ratio = from / to;
  return Array.from({ length: to }, (_, i) => {
    const start = i * ratio;
    const end = Math.min(from, (i + 1) * ratio);
    const first = Math.floor(start);
    const last = Math.min(from, Math.ceil(end));
    const weights = new Float64Array(last - first);
    for (let s = first; s < last; s += 1) weights[s - first] = (Math.min(end, s + 1) - Math.max(start, s)) / ratio;
    return { first, weights };
  });
}

/**
 * The samples averaged down to `width` × `height`: each output pixel the mean
 * of the source area it covers, partly covered pixels weighted by how much
 * (Ghostscript's /Average, without snapping the ratio to a whole number).
 */
export function downsample(samples: Samples, width: number, height: number, budget: DocumentBudget): Samples {
  if (width >= samples.width && height >= samples.height) return samples;
  const { channels } = samples;
  const xs = coverage(samples.width, width);
  const ys = coverage(samples.height, height);
  // Across first, into one row per source row; then down.
  const across = new Float32Array(width * samples.height * channels);
  for (let y = 0; y < samples.height; y += 1) {
    budget.check();
    const row = y * samples.width * channels;
    for (let x = 0; x < width; x += 1) {
      const { first, weights } = xs[x] as { first: number; weights: Float64Array };
      for (let c = 0; c < channels; c += 1) {
        let sum = 0;
        for (let k = 0; k < weights.length; k += 1) sum += (samples.data[row + (first + k) * channels + c] as number) * (weights[k] as number);
        across[(y * width + x) * channels + c] = sum;
      }
    }
  }
  const data = new Uint8Array(width * height * channels);
  const rowLength = width * channels;
  for (let y = 0; y < height; y += 1) {
    budget.check();
    const { first, weights } = ys[y] as { first: number; weights: Float64Array };
    for (let i = 0; i < rowLength; i += 1) {
      let sum = 0;
      for (let k = 0; k < weights.length; k += 1) sum += (across[(first + k) * rowLength + i] as number) * (weights[k] as number);
      data[y * rowLength + i] = Math.min(255, Math.max(0, Math.round(sum)));
    }
  }
  return { data, width, height, channels };
}

function toGray(samples: Samples): Samples {
  if (samples.channels === 1) return samples;
  const pixels = samples.width * samples.height;
  const data = new Uint8Array(pixels);
  for (let i = 0; i < pixels; i += 1) {
    data[i] = Math.round(0.299 * (samples.data[i * 3] as number) + 0.587 * (samples.data[i * 3 + 1] as number) + 0.114 * (samples.data[i * 3 + 2] as number));
  }
  return { data, width: samples.width, height: samples.height, channels: 1 };
}

/** The pixel size an image needs to be shown at `size` points at `dpi`, never more than it has. */
function targetSize(samples: { width: number; height: number }, size: DrawnSize, dpi: number): { width: number; height: number } {
  const width = Math.min(samples.width, Math.max(1, Math.ceil((size.width / 72) * dpi)));
  const height = Math.min(samples.height, Math.max(1, Math.ceil((size.height / 72) * dpi)));
  return { width, height };
}

/** The image's dictionary entries other than the ones the rewrite sets. */
function keptEntries(dict: PDFDict, recoloured: boolean): Map<PDFName, PDFObject> {
  // A recoloured image (grey, or CMYK made RGB) gets its new colour space; its /Decode was applied while reading.
  const dropped = ['Length', 'Filter', 'DecodeParms', 'Width', 'Height', 'ColorTransform', 'BitsPerComponent', ...(recoloured ? ['ColorSpace', 'Decode'] : [])].map(name);
  return new Map([...dict.entries()].filter(([key]) => !dropped.includes(key)));
}

function imageStream(doc: PDFDocument, kept: Map<PDFName, PDFObject>, samples: Samples, filter: 'DCTDecode' | 'FlateDecode', bytes: Uint8Array, colorSpace?: PDFName): PDFRawStream {
  const dict = PDFDict.fromMapWithContext(new Map(kept), doc.context);
  dict.set(name('Width'), PDFNumber.of(samples.width));
  dict.set(name('Height'), PDFNumber.of(samples.height));
  dict.set(name('BitsPerComponent'), PDFNumber.of(8));
  dict.set(name('Filter'), name(filter));
  if (colorSpace) dict.set(name('ColorSpace'), colorSpace);
  dict.set(name('Length'), PDFNumber.of(bytes.length));
  return PDFRawStream.of(dict, bytes);
}

async function compressImage(doc: PDFDocument, ref: PDFRef, image: PDFStream, drawn: DrawnSize, plan: CompressPlan, keepCmyk: boolean, budget: DocumentBudget): Promise<void> {
  const { dict } = image;
  const channels = channelsOf(doc, dict.get(name('ColorSpace')));
  if (!channels || (channels === 4 && keepCmyk)) return;
  const maskRef = dict.get(name('SMask'));
  const mask = maskRef instanceof PDFRef ? doc.context.lookup(maskRef) : undefined;
  if (maskRef && !(mask instanceof PDFStream)) return;
  const gray = plan.grayscale && channels !== 1;
  // CMYK is rewritten as RGB even at its size, as Ghostscript's /ebook does (kept when that is not smaller).
  const cmyk = channels === 4;
  // Whether it would change at all, from its declared size: an image already small enough is not decoded.
  const declared = { width: numberOf(dict, 'Width') ?? 0, height: numberOf(dict, 'Height') ?? 0 };
  const wanted = targetSize(declared, drawn, plan.maxImageDpi);
  if (wanted.width >= declared.width && wanted.height >= declared.height && !gray && !cmyk) return;
  const original = await readSamples(image, channels, budget);
  if (!original) return;
  const target = targetSize(original, drawn, plan.maxImageDpi);
  let samples = downsample(original, target.width, target.height, budget);
  if (gray) samples = toGray(samples);
  const oldBytes = image instanceof PDFRawStream ? image.getContents().length : Infinity;
  const kept = keptEntries(dict, gray || cmyk);
  const colorSpace = gray ? name('DeviceGray') : cmyk ? name('DeviceRGB') : undefined;

  if (mask instanceof PDFStream && maskRef instanceof PDFRef) {
    // Transparency: samples and alpha both stay lossless, at the same size.
    if (channelsOf(doc, mask.dict.get(name('ColorSpace'))) !== 1) return;
    const alpha = await readSamples(mask, 1, budget);
    if (!alpha || alpha.width !== original.width || alpha.height !== original.height) return;
    const smallAlpha = downsample(alpha, samples.width, samples.height, budget);
    const flate = deflateSync(samples.data, { level: 6 });
    const maskFlate = deflateSync(smallAlpha.data, { level: 6 });
    const oldMask = mask instanceof PDFRawStream ? mask.getContents().length : Infinity;
    if (!gray && flate.length + maskFlate.length >= oldBytes + oldMask) return;
    doc.context.assign(maskRef, imageStream(doc, keptEntries(mask.dict, false), smallAlpha, 'FlateDecode', maskFlate));
    doc.context.assign(ref, imageStream(doc, kept, samples, 'FlateDecode', flate, colorSpace));
    return;
  }
  const jpeg = await encodeJpeg(samples, plan.imageQuality);
  if (!gray && jpeg.length >= oldBytes) return;
  doc.context.assign(ref, imageStream(doc, kept, samples, 'DCTDecode', jpeg, colorSpace));
}

/** Rewrites every reference `from` → `to` inside `object` (dictionaries, arrays, stream dictionaries). */
function replaceRefs(object: PDFObject, replace: Map<PDFRef, PDFRef>): void {
  const swap = (value: PDFObject): PDFObject => (value instanceof PDFRef ? (replace.get(value) ?? value) : (replaceRefs(value, replace), value));
  if (object instanceof PDFDict) for (const [key, value] of object.entries()) object.set(key, swap(value));
  else if (object instanceof PDFArray) for (let i = 0; i < object.size(); i += 1) object.set(i, swap(object.get(i)));
  else if (object instanceof PDFStream) replaceRefs(object.dict, replace);
}

/** Streams of equal dictionary and bytes (two parts' copies of one font, logo or ICC profile) become one object. */
function storeIdenticalOnce(doc: PDFDocument, budget: DocumentBudget): void {
  const first = new Map<string, PDFRef>();
  const replace = new Map<PDFRef, PDFRef>();
  for (const [ref, object] of doc.context.enumerateIndirectObjects()) {
    budget.check();
    if (!(object instanceof PDFRawStream)) continue;
    const entries = [...object.dict.entries()].filter(([key]) => key !== name('Length')).map(([key, value]) => `${key.toString()} ${value.toString()}`).sort();
    const key = createHash('sha256').update(entries.join('\n')).update('\0').update(object.getContents()).digest('base64');
    const kept = first.get(key);
    if (kept) replace.set(ref, kept);
    else first.set(key, ref);
  }
  if (replace.size === 0) return;
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    budget.check();
    replaceRefs(object, replace);
  }
  for (const [key, value] of Object.entries(doc.context.trailerInfo)) {
    if (value instanceof PDFRef && replace.has(value)) (doc.context.trailerInfo as Record<string, unknown>)[key] = replace.get(value);
  }
  for (const ref of replace.keys()) doc.context.delete(ref);
}
