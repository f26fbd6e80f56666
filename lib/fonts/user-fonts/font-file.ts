/**
 * Reads an uploaded font file, with bounds, before anything stores it: the
 * format by its magic bytes, WOFF and WOFF2 unpacked to plain TrueType /
 * OpenType (the sizes they declare checked before anything is unpacked), then
 * parsed by fontkit (the tables a font needs, a sane glyph count, a sample laid
 * out). What comes out is the normalised font the service keeps, and the
 * family, weight and style a page will name it by.
 */
import { createHash } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import fontkit from '@cantoo/fontkit';
import { FontFileError } from './errors.js';
import { familyProblem, isGenericFamily } from '../family-names.js';
import { MAX_FONT_FILE_BYTES, MAX_FONT_TABLES, MAX_SFNT_BYTES } from './font-limits.js';

/** The formats a font may be uploaded in. */
export type FontUploadFormat = 'ttf' | 'otf' | 'woff' | 'woff2';

/** A font as the service keeps it: TrueType outlines (`ttf`) or CFF ones (`otf`). */
export type SfntFormat = 'ttf' | 'otf';

/** What a checked font file is. */
export type FontFile = {
  /** The plain sfnt (TrueType / OpenType) bytes: what is stored and served to Chromium. */
  sfnt: Buffer;
  format: SfntFormat;
  /** The format it was uploaded in. */
  uploaded: FontUploadFormat;
  /** The typographic family (name ID 16, else 1), checked as a family name. */
  family: string;
  /** OS/2 usWeightClass, 1–1000. */
  weight: number;
  style: 'normal' | 'italic';
  numGlyphs: number;
  /** SHA-256 of `sfnt`, hex. */
  sha256: string;
};

const TRUETYPE = 0x00010000;
const MAGIC: Record<string, FontUploadFormat> = { OTTO: 'otf', true: 'ttf', wOFF: 'woff', wOF2: 'woff2' };

/** Tables every font Chromium can draw with has; the outlines come as glyf+loca or CFF. */
const REQUIRED_TABLES = ['cmap', 'head', 'hhea', 'hmtx', 'maxp', 'name'];

/** What a sample layout lays out: Latin and digits, which a Latin face draws and any face survives. */
const SAMPLE_TEXT = 'Hamburgefonstiv 0123456789';

/**
 * The uploaded format by its first four bytes; a collection (`ttcf`) is refused:
 * taking its first face silently would store a face the caller may not have meant
 * (a .ttc's faces are the family's weights), and keep the other faces' bytes for nothing.
 */
export function fontFormatOf(bytes: Uint8Array): FontUploadFormat {
  if (bytes.length < 12) throw new FontFileError('Too short to be a font file');
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.readUInt32BE(0) === TRUETYPE) return 'ttf';
  const tag = view.toString('latin1', 0, 4);
  if (tag === 'ttcf') throw new FontFileError('A font collection (.ttc/.otc) is not taken: upload each face as its own file');
  const format = MAGIC[tag];
  if (!format) throw new FontFileError('Not a font file: expected TrueType, OpenType, WOFF or WOFF2');
  return format;
}

/**
 * Checks an uploaded font and normalises it to sfnt; every problem is a
 * FontFileError saying what is wrong with the file. `family` overrides the one
 * the font names.
 */
export async function readFontFile(bytes: Uint8Array, options: { family?: string } = {}): Promise<FontFile> {
  if (bytes.length > MAX_FONT_FILE_BYTES) throw new FontFileError(`Must be at most ${MAX_FONT_FILE_BYTES / 1024 / 1024} MB`);
  const uploaded = fontFormatOf(bytes);
  const input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sfnt = uploaded === 'woff2' ? await unpackWoff2(input) : uploaded === 'woff' ? unpackWoff(input) : input;
  // What a WOFF wraps must itself be TrueType or OpenType (not a collection, not another WOFF).
  const format = fontFormatOf(sfnt);
  if (format !== 'ttf' && format !== 'otf') throw new FontFileError('The WOFF wraps something other than a TrueType or OpenType font');
  checkTableDirectory(sfnt);
  const parsed = parse(sfnt);
  const family = checkFamily(options.family ?? parsed.family);
  return {
    sfnt: Buffer.from(sfnt),
    format,
    uploaded,
    family,
    weight: parsed.weight,
    style: parsed.style,
    numGlyphs: parsed.numGlyphs,
    sha256: createHash('sha256').update(sfnt).digest('hex'),
  };
}

/** A family name as a page will write it in CSS: letters, digits, spaces, `-`, `_` and `.`; never a generic family's name. */
export function checkFamily(family: string): string {
  const trimmed = family.trim().replace(/\s+/g, ' ');
  if (trimmed === '') throw new FontFileError('The font names no family: give one (family)');
  const problem = familyProblem(trimmed);
  if (problem) throw new FontFileError(problem);
  if (isGenericFamily(trimmed)) throw new FontFileError(`"${trimmed}" is a generic family of CSS: name the font otherwise`);
  return trimmed;
}

/**
 * WOFF (1.0): every table inflated on its own, each to exactly the length its
 * directory entry declares (zlib's maxOutputLength), and the sum of those bounded
 * before any is inflated; then laid out as an sfnt.
 */
function unpackWoff(woff: Buffer): Buffer {
  if (woff.length < 44) throw new FontFileError('Truncated WOFF: no complete header');
  const flavor = woff.readUInt32BE(4);
  const numTables = woff.readUInt16BE(12);
  const totalSfntSize = woff.readUInt32BE(16);
  if (numTables === 0 || numTables > MAX_FONT_TABLES) throw new FontFileError(`The WOFF declares ${numTables} tables`);
  if (totalSfntSize > MAX_SFNT_BYTES) throw new FontFileError(`The WOFF unpacks to ${totalSfntSize} bytes, more than ${MAX_SFNT_BYTES / 1024 / 1024} MB`);
  if (44 + numTables * 20 > woff.length) throw new FontFileError('Truncated WOFF: its table directory is cut off');
  const entries = Array.from({ length: numTables }, (_, i) => {
    const at = 44 + i * 20;
    return {
      tag: woff.subarray(at, at + 4),
      offset: woff.readUInt32BE(at + 4),
      compLength: woff.readUInt32BE(at + 8),
      origLength: woff.readUInt32BE(at + 12),
      checksum: woff.readUInt32BE(at + 16),
    };
  });
  const declared = entries.reduce((sum, entry) => sum + padded(entry.origLength), 12 + 16 * numTables);
  if (declared > MAX_SFNT_BYTES) throw new FontFileError(`The WOFF's tables unpack to ${declared} bytes, more than ${MAX_SFNT_BYTES / 1024 / 1024} MB`);
  const out = Buffer.alloc(declared);
  out.writeUInt32BE(flavor, 0);
  out.writeUInt16BE(numTables, 4);
  const [searchRange, entrySelector, rangeShift] = searchFields(numTables);
  out.writeUInt16BE(searchRange, 6);
  out.writeUInt16BE(entrySelector, 8);
  out.writeUInt16BE(rangeShift, 10);
  let at = 12 + 16 * numTables;
  entries.forEach((entry, i) => {
    const tag = entry.tag.toString('latin1');
    if (entry.offset + entry.compLength > woff.length) throw new FontFileError(`Truncated WOFF: table ${tag} is cut off`);
    if (entry.compLength > entry.origLength) throw new FontFileError(`The WOFF's table ${tag} is longer packed than unpacked`);
    const packed = woff.subarray(entry.offset, entry.offset + entry.compLength);
    let table: Buffer;
    if (entry.compLength === entry.origLength) table = packed;
    else {
      try {
        table = inflateSync(packed, { maxOutputLength: entry.origLength });
      } catch (cause) {
        throw new FontFileError(`The WOFF's table ${tag} does not unpack to its declared ${entry.origLength} bytes`, { cause });
      }
      if (table.length !== entry.origLength) throw new FontFileError(`The WOFF's table ${tag} does not unpack to its declared ${entry.origLength} bytes`);
    }
    const record = 12 + i * 16;
    entry.tag.copy(out, record);
    out.writeUInt32BE(entry.checksum, record + 4);
    out.writeUInt32BE(at, record + 8);
    out.writeUInt32BE(entry.origLength, record + 12);
    table.copy(out, at);
    at += padded(entry.origLength);
  });
  return out;
}

/**
 * WOFF2: the size it says it unpacks to (its header's totalSfntSize) is checked
 * first, so a file claiming gigabytes is refused before the decoder allocates anything;
 * the decoder (Google's, as WebAssembly) then works within that.
 */
async function unpackWoff2(woff2: Buffer): Promise<Buffer> {
  if (woff2.length < 48) throw new FontFileError('Truncated WOFF2: no complete header');
  const length = woff2.readUInt32BE(8);
  const numTables = woff2.readUInt16BE(12);
  const totalSfntSize = woff2.readUInt32BE(16);
  if (length !== woff2.length) throw new FontFileError(`Truncated WOFF2: its header says ${length} bytes, the file has ${woff2.length}`);
  if (numTables === 0 || numTables > MAX_FONT_TABLES) throw new FontFileError(`The WOFF2 declares ${numTables} tables`);
  if (totalSfntSize > MAX_SFNT_BYTES) throw new FontFileError(`The WOFF2 unpacks to ${totalSfntSize} bytes, more than ${MAX_SFNT_BYTES / 1024 / 1024} MB`);
  // The decoder alone: the package's index also loads its encoder (another 0.9 MB of WebAssembly).
  const { default: decompress } = await import('wawoff2/decompress.js');
  let sfnt: Uint8Array;
  try {
    sfnt = await decompress(woff2);
  } catch (cause) {
    throw new FontFileError('The WOFF2 could not be unpacked (damaged or truncated)', { cause });
  }
  if (sfnt.length > MAX_SFNT_BYTES) throw new FontFileError(`The WOFF2 unpacks to more than ${MAX_SFNT_BYTES / 1024 / 1024} MB`);
  return Buffer.from(sfnt.buffer, sfnt.byteOffset, sfnt.byteLength);
}

/** The sfnt's table directory: a sane count, every table inside the file, the tables a font needs present. */
function checkTableDirectory(sfnt: Buffer): void {
  const numTables = sfnt.readUInt16BE(4);
  if (numTables === 0 || numTables > MAX_FONT_TABLES) throw new FontFileError(`The font declares ${numTables} tables`);
  if (12 + numTables * 16 > sfnt.length) throw new FontFileError('Truncated font: its table directory is cut off');
  const tags = new Set<string>();
  for (let i = 0; i < numTables; i += 1) {
    const record = 12 + i * 16;
    const tag = sfnt.toString('latin1', record, record + 4);
    const offset = sfnt.readUInt32BE(record + 8);
    const length = sfnt.readUInt32BE(record + 12);
    if (offset + length > sfnt.length) throw new FontFileError(`Truncated font: table ${tag.trim()} is cut off`);
    tags.add(tag);
  }
  const missing = REQUIRED_TABLES.filter((tag) => !tags.has(tag));
  if (!(tags.has('glyf') && tags.has('loca')) && !tags.has('CFF ') && !tags.has('CFF2')) missing.push('glyf or CFF');
  if (missing.length > 0) throw new FontFileError(`Not a usable font: it lacks the ${missing.join(', ')} table${missing.length > 1 ? 's' : ''}`);
}

type ParsedFont = { family: string; weight: number; style: 'normal' | 'italic'; numGlyphs: number };

/** The subset of fontkit's font this reads. */
type FontkitFont = {
  numGlyphs: number;
  familyName?: string;
  getName(key: string): string | null;
  'OS/2'?: { usWeightClass?: number; fsSelection?: { italic?: boolean; oblique?: boolean } };
  head?: { macStyle?: { italic?: boolean } };
  characterSet: number[];
  layout(text: string): { glyphs: Array<{ id: number }> };
};

/** fontkit's reading of the sfnt: names, weight, style, glyph count, and a sample laid out. */
function parse(sfnt: Buffer): ParsedFont {
  let font: FontkitFont;
  try {
    font = fontkit.create(sfnt) as unknown as FontkitFont;
  } catch (cause) {
    throw new FontFileError('The font could not be read (damaged or truncated)', { cause });
  }
  try {
    const numGlyphs = font.numGlyphs;
    // glyph 0 is .notdef: a font with no other glyph draws nothing.
    if (!Number.isInteger(numGlyphs) || numGlyphs < 2 || numGlyphs > 65_535) throw new FontFileError(`The font declares ${numGlyphs} glyphs`);
    if (font.characterSet.length === 0) throw new FontFileError('The font maps no character to a glyph (empty cmap)');
    // A layout touches cmap, GSUB, GPOS and hmtx: what a page's text will. What throws here would fail there.
    const laidOut = font.layout(SAMPLE_TEXT);
    if (laidOut.glyphs.some((glyph) => glyph.id >= numGlyphs)) throw new FontFileError('The font maps characters to glyphs it does not have');
    const os2 = font['OS/2'];
    const weightClass = os2?.usWeightClass ?? 400;
    const italic = os2?.fsSelection?.italic === true || os2?.fsSelection?.oblique === true || font.head?.macStyle?.italic === true;
    const family = font.getName('preferredFamily') ?? font.familyName ?? '';
    return { family: String(family), weight: Math.min(1000, Math.max(1, weightClass || 400)), style: italic ? 'italic' : 'normal', numGlyphs };
  } catch (cause) {
    if (cause instanceof FontFileError) throw cause;
    throw new FontFileError('The font could not be read (damaged tables)', { cause });
  }
}

/** Tables start on 4-byte boundaries. */
const padded = (length: number) => (length + 3) & ~3;

/** The offset table's binary-search fields for `numTables`. */
function searchFields(numTables: number): [number, number, number] {
  let entrySelector = 0;
  while (2 ** (entrySelector + 1) <= numTables) entrySelector += 1;
  const searchRange = 2 ** entrySelector * 16;
  return [searchRange, entrySelector, numTables * 16 - searchRange];
}
