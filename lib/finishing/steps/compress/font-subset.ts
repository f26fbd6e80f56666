/**
 * Font subsetting for the compress step: a TrueType CID font (Type0,
 * Identity-H or -V, CIDFontType2 with the identity CID-to-glyph map, as Word,
 * LibreOffice and many PDF libraries write) whose every use the content walk
 * knows keeps only the glyphs it shows. Such fonts often carry a glyph slot,
 * a metric and a width for every glyph of the face (pdf.js's smaskdim.pdf: an
 * Arial "subset" of 3417 glyph slots and a /W array of them all, 20 KB of its
 * 34 KB), where Ghostscript writes the glyphs used. The glyphs are renumbered
 * by @cantoo/fontkit's TrueType subsetter (the one pdf-lib embeds fonts
 * with; hinting tables kept), a CIDToGIDMap stream maps each shown CID to its
 * new glyph, and /W and /CIDSet are cut to the CIDs shown. The content
 * streams are not touched. A font is kept as it is when anything about it is
 * unexpected or when the subset would not be smaller.
 */
import { deflateSync } from 'node:zlib';
import fontkit from '@cantoo/fontkit';
import { PDFArray, type PDFDocument, PDFDict, PDFName, PDFNumber, type PDFObject, PDFRawStream, PDFRef, PDFStream } from '@cantoo/pdf-lib';
import type { DocumentBudget } from '../../../budget/document-budget.js';
import type { ContentUsage } from './content-images.js';
import { streamBytes } from '../../objects/stream-bytes.js';

const name = (value: string) => PDFName.of(value);

type Subsettable = { cidFont: PDFDict; descriptor: PDFDict; fontFileRef: PDFRef; fontFile: PDFStream };

/** The parts of a Type0 font this module rewrites, or undefined when it is not one it handles. */
function subsettable(doc: PDFDocument, ref: PDFRef): Subsettable | undefined {
  const font = doc.context.lookup(ref);
  if (!(font instanceof PDFDict) || font.get(name('Subtype')) !== name('Type0')) return undefined;
  const encoding = font.get(name('Encoding'));
  if (encoding !== name('Identity-H') && encoding !== name('Identity-V')) return undefined;
  const descendants = font.lookup(name('DescendantFonts'));
  const cidFont = descendants instanceof PDFArray && descendants.size() === 1 ? descendants.lookup(0) : undefined;
  if (!(cidFont instanceof PDFDict) || cidFont.get(name('Subtype')) !== name('CIDFontType2')) return undefined;
  const map = cidFont.get(name('CIDToGIDMap'));
  if (map !== undefined && map !== name('Identity')) return undefined;
  const descriptor = cidFont.lookup(name('FontDescriptor'));
  const fontFileRef = descriptor instanceof PDFDict ? descriptor.get(name('FontFile2')) : undefined;
  const fontFile = fontFileRef instanceof PDFRef ? doc.context.lookup(fontFileRef) : undefined;
  if (!(descriptor instanceof PDFDict) || !(fontFileRef instanceof PDFRef) || !(fontFile instanceof PDFStream)) return undefined;
  return { cidFont, descriptor, fontFileRef, fontFile };
}

/** The CIDs of Identity-encoded strings: two bytes each, big-endian; undefined for a string of odd length. */
function cidsOf(strings: Uint8Array[]): Set<number> | undefined {
  const cids = new Set<number>();
  for (const string of strings) {
    if (string.length % 2 === 1) return undefined;
    for (let i = 0; i < string.length; i += 2) cids.add(((string[i] as number) << 8) | (string[i + 1] as number));
  }
  return cids;
}

/** The index of the first of `sorted` that is at least `value`. */
function firstAtLeast(sorted: number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((sorted[middle] as number) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The widths of a /W array (ISO 32000 §9.7.4.3), CID by CID; undefined when
 * malformed. A range finds its shown CIDs by binary search, each counted: a
 * /W of many ranges each covering every CID would otherwise cost ranges × CIDs.
 */
function widthsOf(w: PDFObject | undefined, cids: Set<number>, budget: DocumentBudget): Map<number, number> | undefined {
  const widths = new Map<number, number>();
  if (w === undefined) return widths;
  if (!(w instanceof PDFArray)) return undefined;
  const items = w.asArray();
  const sorted = [...cids].sort((a, b) => a - b);
  const num = (object: PDFObject | undefined) => (object instanceof PDFNumber ? object.asNumber() : undefined);
  for (let i = 0; i < items.length; ) {
    budget.check();
    const first = num(items[i]);
    const next = items[i + 1];
    if (first === undefined) return undefined;
    if (next instanceof PDFArray) {
      next.asArray().forEach((width, k) => {
        const value = num(width);
        if (cids.has(first + k) && value !== undefined) widths.set(first + k, value);
      });
      i += 2;
    } else {
      const last = num(next);
      const width = num(items[i + 2]);
      if (last === undefined || width === undefined) return undefined;
      let k = firstAtLeast(sorted, first);
      const from = k;
      for (; k < sorted.length && (sorted[k] as number) <= last; k += 1) widths.set(sorted[k] as number, width);
      if (k > from) budget.spend('objects', k - from);
      i += 3;
    }
  }
  return widths;
}

/** A /W array of the given widths: runs of consecutive CIDs as `c [w1 w2 …]`. */
function widthsArray(doc: PDFDocument, widths: Map<number, number>): PDFArray {
  const out = PDFArray.withContext(doc.context);
  const sorted = [...widths.keys()].sort((a, b) => a - b);
  for (let i = 0; i < sorted.length; ) {
    const start = sorted[i] as number;
    const run = PDFArray.withContext(doc.context);
    while (i < sorted.length && sorted[i] === start + run.size()) run.push(PDFNumber.of(widths.get(sorted[i++] as number) as number));
    out.push(PDFNumber.of(start));
    out.push(run);
  }
  return out;
}

type Face = { numGlyphs: number; directory: { tables: Record<string, unknown> }; createSubset: () => { includeGlyph: (gid: number) => number; encode: () => Uint8Array } };

/** The font program cut to `gids` (and glyph 0), with each kept glyph's new number; undefined when fontkit cannot read it as TrueType. */
function subsetProgram(program: Uint8Array, gids: number[]): { bytes: Uint8Array; newGid: Map<number, number> } | undefined {
  try {
    const face = fontkit.create(Buffer.from(program)) as unknown as Face;
    if (!face.directory?.tables.glyf || !face.directory.tables.loca || typeof face.createSubset !== 'function') return undefined;
    const subset = face.createSubset();
    subset.includeGlyph(0);
    const newGid = new Map<number, number>();
    for (const gid of gids) if (gid < face.numGlyphs) newGid.set(gid, subset.includeGlyph(gid));
    return { bytes: subset.encode(), newGid };
  } catch {
    return undefined;
  }
}

/**
 * Subsets, in place, every handled font whose uses the walk knows fully. One
 * font program shared by several fonts (parts of a merge, stored once) is
 * cut to the CIDs all of them show.
 */
export function subsetFonts(doc: PDFDocument, usage: ContentUsage, budget: DocumentBudget): void {
  const byProgram = new Map<PDFRef, { parts: Subsettable[]; cids: Set<number> }>();
  const refused = new Set<PDFRef>();
  for (const ref of usage.fontsFullyKnown) {
    budget.check();
    const parts = subsettable(doc, ref);
    if (!parts) continue;
    const cids = cidsOf(usage.fonts.get(ref) ?? []);
    if (!cids) refused.add(parts.fontFileRef);
    const entry = byProgram.get(parts.fontFileRef) ?? { parts: [] as Subsettable[], cids: new Set<number>() };
    entry.parts.push(parts);
    for (const cid of cids ?? []) entry.cids.add(cid);
    byProgram.set(parts.fontFileRef, entry);
  }
  // A program some other font (or an unknown use) also reaches stays whole.
  const users = new Map<PDFRef, number>();
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    budget.check();
    const program = object instanceof PDFDict ? object.get(name('FontFile2')) : undefined;
    if (program instanceof PDFRef) users.set(program, (users.get(program) ?? 0) + 1);
  }
  for (const [fontFileRef, { parts, cids }] of byProgram) {
    budget.check();
    if (refused.has(fontFileRef) || users.get(fontFileRef) !== new Set(parts.map((part) => part.descriptor)).size) continue;
    const program = streamBytes(parts[0]?.fontFile as PDFStream, budget);
    if (!program) continue;
    const sorted = [...cids].sort((a, b) => a - b);
    const subset = subsetProgram(program, sorted);
    if (!subset) continue;
    const compressed = deflateSync(subset.bytes, { level: 9 });
    // The CID → glyph map: two bytes per CID up to the largest shown (unshown ones to glyph 0).
    const maxCid = sorted.at(-1) ?? 0;
    const map = new Uint8Array((maxCid + 1) * 2);
    for (const [cid, gid] of subset.newGid) {
      map[cid * 2] = gid >> 8;
      map[cid * 2 + 1] = gid & 0xff;
    }
    const mapBytes = deflateSync(map, { level: 9 });
    const old = parts[0]?.fontFile instanceof PDFRawStream ? parts[0].fontFile.getContents().length : Infinity;
    if (compressed.length + mapBytes.length >= old) continue;
    const widths = parts.map(({ cidFont }) => widthsOf(cidFont.lookup(name('W')), cids, budget));
    if (widths.some((w) => w === undefined)) continue;

    doc.context.assign(fontFileRef, PDFRawStream.of(doc.context.obj({ Filter: 'FlateDecode', Length: compressed.length, Length1: subset.bytes.length }) as PDFDict, compressed));
    const mapRef = doc.context.register(PDFRawStream.of(doc.context.obj({ Filter: 'FlateDecode', Length: mapBytes.length }) as PDFDict, mapBytes));
    parts.forEach(({ cidFont, descriptor }, i) => {
      cidFont.set(name('CIDToGIDMap'), mapRef);
      cidFont.set(name('W'), widthsArray(doc, widths[i] as Map<number, number>));
      if (descriptor.has(name('CIDSet'))) descriptor.set(name('CIDSet'), cidSet(doc, [0, ...sorted]));
    });
  }
}

/** A /CIDSet stream: one bit per CID present in the font program, most significant bit first. */
function cidSet(doc: PDFDocument, cids: number[]): PDFRef {
  // The largest by a loop: a spread of many thousand CIDs as arguments can throw RangeError.
  const largest = cids.reduce((max, cid) => Math.max(max, cid), 0);
  const bits = new Uint8Array((largest >> 3) + 1);
  for (const cid of cids) bits[cid >> 3] = (bits[cid >> 3] as number) | (0x80 >> (cid & 7));
  const bytes = deflateSync(bits);
  return doc.context.register(PDFRawStream.of(doc.context.obj({ Filter: 'FlateDecode', Length: bytes.length }) as PDFDict, bytes));
}
