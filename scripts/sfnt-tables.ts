/**
 * Drops tables from a TrueType/OpenType font file (the sfnt container of the
 * OpenType specification, "Organization of an OpenType font"). The layer's
 * colour emoji carries its glyphs twice: as COLR vectors, which Chromium
 * draws and prints, and as an OT-SVG table of 20 MB that Chromium never
 * reads. The build keeps the font whole (its sequences need every glyph in
 * one face) and drops that table.
 */

const HEADER_BYTES = 12;
const RECORD_BYTES = 16;
/** The OpenType specification's constant for head.checksumAdjustment. */
const CHECKSUM_MAGIC = 0xb1b0afba;
const SFNT_VERSIONS = new Set([0x00010000, 0x4f54544f /* OTTO */, 0x74727565 /* true */]);

type TableRecord = { tag: string; checksum: number; offset: number; length: number };

/** The font with the tables named in `drop` removed, its directory and head.checksumAdjustment rewritten. */
export function withoutTables(font: Uint8Array, drop: readonly string[]): Uint8Array {
  const tables = tableRecords(font);
  const kept = tables.filter((table) => !drop.includes(table.tag));
  const padded = (length: number) => (length + 3) & ~3;
  const dataStart = HEADER_BYTES + RECORD_BYTES * kept.length;
  const out = new Uint8Array(dataStart + kept.reduce((sum, table) => sum + padded(table.length), 0));
  const view = new DataView(out.buffer);
  const source = new DataView(font.buffer, font.byteOffset, font.byteLength);
  // The offset table: version, numTables and the binary-search fields derived from it.
  const entrySelector = Math.floor(Math.log2(Math.max(kept.length, 1)));
  view.setUint32(0, source.getUint32(0));
  view.setUint16(4, kept.length);
  view.setUint16(6, 2 ** entrySelector * RECORD_BYTES);
  view.setUint16(8, entrySelector);
  view.setUint16(10, kept.length * RECORD_BYTES - 2 ** entrySelector * RECORD_BYTES);
  let offset = dataStart;
  let headOffset: number | undefined;
  kept.forEach((table, index) => {
    const record = HEADER_BYTES + index * RECORD_BYTES;
    for (let i = 0; i < 4; i += 1) view.setUint8(record + i, table.tag.charCodeAt(i));
    view.setUint32(record + 4, table.checksum);
    view.setUint32(record + 8, offset);
    view.setUint32(record + 12, table.length);
    out.set(font.subarray(table.offset, table.offset + table.length), offset);
    if (table.tag === 'head') headOffset = offset;
    offset += padded(table.length);
  });
  if (headOffset !== undefined) {
    // The whole file's checksum, computed with the adjustment at zero, is what the adjustment completes.
    view.setUint32(headOffset + 8, 0);
    view.setUint32(headOffset + 8, (CHECKSUM_MAGIC - sfntChecksum(out)) >>> 0);
  }
  return out;
}

/** The tags of the font's tables, in its directory's order. */
export function tableTags(font: Uint8Array): string[] {
  return tableRecords(font).map((table) => table.tag);
}

/** The OpenType checksum: the sum of the data as big-endian 32-bit words, zero-padded, modulo 2^32. */
export function sfntChecksum(data: Uint8Array): number {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let sum = 0;
  const whole = data.byteLength & ~3;
  for (let i = 0; i < whole; i += 4) sum = (sum + view.getUint32(i)) >>> 0;
  if (whole < data.byteLength) {
    let last = 0;
    for (let i = whole; i < whole + 4; i += 1) last = (last << 8) | (i < data.byteLength ? data[i]! : 0);
    sum = (sum + (last >>> 0)) >>> 0;
  }
  return sum;
}

function tableRecords(font: Uint8Array): TableRecord[] {
  const view = new DataView(font.buffer, font.byteOffset, font.byteLength);
  if (font.byteLength < HEADER_BYTES || !SFNT_VERSIONS.has(view.getUint32(0))) throw new Error('not a TrueType or OpenType font file (a WOFF2 must be decoded first)');
  const count = view.getUint16(4);
  if (HEADER_BYTES + count * RECORD_BYTES > font.byteLength) throw new Error('the font\'s table directory runs past its end');
  return Array.from({ length: count }, (_, index) => {
    const record = HEADER_BYTES + index * RECORD_BYTES;
    const table = {
      tag: String.fromCharCode(...font.subarray(record, record + 4)),
      checksum: view.getUint32(record + 4),
      offset: view.getUint32(record + 8),
      length: view.getUint32(record + 12),
    };
    if (table.offset + table.length > font.byteLength) throw new Error(`the font's ${table.tag} table runs past its end`);
    return table;
  });
}
