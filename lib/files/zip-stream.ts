import { crc32 } from 'node:zlib';

/** One file of an archive: its name in the archive and its bytes, read only when its turn comes. */
export type ZipEntry = { name: string; open: () => Promise<AsyncIterable<Uint8Array> | Iterable<Uint8Array>> };

/** ZIP's 32-bit fields and 16-bit entry count; beyond them an archive needs ZIP64, which this writer does not write. */
const MAX_32 = 0xffff_ffff;
const MAX_ENTRIES = 0xffff;
/** General purpose flags: sizes and CRC in a data descriptor after the data (bit 3), names in UTF-8 (bit 11). */
const FLAGS = 0x0808;
/** 1980-01-01 00:00 in MS-DOS time: the entries' dates say nothing (the files' own dates are in the manifest). */
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

/** An archive would pass what a ZIP without ZIP64 can hold. */
export class ZipTooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZipTooLargeError';
  }
}

/**
 * Characters an entry's name never carries: path separators and the colon
 * (a path, a drive `C:`, an NTFS stream), control characters, line and
 * paragraph separators and bidirectional-text controls (a name that reads
 * as another: `<U+202E>fdp.exe`). Our entries are flat files, never folders.
 */
const UNSAFE_IN_NAME = /[/\\:\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/gu;
/** Names Windows gives to devices, whatever their extension (`NUL.pdf` writes to no file). */
const WINDOWS_DEVICE = /^(?:con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3]) *(?:\.|$)/iu;

/**
 * An entry's name as any extractor writes it where it was meant: each unsafe
 * character becomes `_`, trailing dots and spaces (which Windows drops) `_`,
 * a Windows device name gets a leading `_`. A safe name is kept as it is.
 * The request schemas refuse unsafe batch item names already; this holds for
 * whatever reaches the writer.
 */
export function safeEntryName(name: string): string {
  const safe = name.replace(UNSAFE_IN_NAME, '_').replace(/[. ]+$/u, (tail) => '_'.repeat(tail.length)) || '_';
  return WINDOWS_DEVICE.test(safe) ? `_${safe}` : safe;
}

/**
 * A ZIP archive written as it goes: each entry's local header, then its bytes
 * as they are read (stored, not deflated: PDFs and images are compressed
 * already), then a data descriptor with its CRC-32 and size; the central
 * directory at the end. Only one entry's current chunk is held at a time, so
 * an archive of thousands of files streams through in bounded memory. Names
 * go in as safeEntryName makes them.
 */
export async function* zipStream(entries: AsyncIterable<ZipEntry> | Iterable<ZipEntry>): AsyncGenerator<Buffer> {
  const directory: Buffer[] = [];
  let offset = 0;
  let count = 0;
  for await (const entry of entries) {
    count += 1;
    if (count > MAX_ENTRIES) throw new ZipTooLargeError(`An archive holds at most ${MAX_ENTRIES} files`);
    const name = Buffer.from(safeEntryName(entry.name), 'utf8');
    const headerOffset = offset;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0
    local.writeUInt16LE(FLAGS, 6);
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt16LE(0, 10); // time
    local.writeUInt16LE(DOS_DATE, 12);
    // CRC and sizes (14–25) are zero here: the data descriptor carries them.
    local.writeUInt16LE(name.length, 26);
    yield Buffer.concat([local, name]);
    offset += local.length + name.length;
    let crc = 0;
    let size = 0;
    for await (const chunk of await entry.open()) {
      crc = crc32(chunk, crc);
      size += chunk.length;
      yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
    offset += size;
    if (size > MAX_32 || offset > MAX_32) throw new ZipTooLargeError('An archive holds at most 4 GiB');
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(crc, 4);
    descriptor.writeUInt32LE(size, 8);
    descriptor.writeUInt32LE(size, 12);
    yield descriptor;
    offset += descriptor.length;
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // made by: 2.0, MS-DOS attributes
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(FLAGS, 8);
    central.writeUInt16LE(0, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(size, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    // extra, comment, disk, internal and external attributes (30–41) stay zero.
    central.writeUInt32LE(headerOffset, 42);
    directory.push(central, name);
  }
  const directoryBytes = Buffer.concat(directory);
  if (offset + directoryBytes.length > MAX_32) throw new ZipTooLargeError('An archive holds at most 4 GiB');
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(directoryBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  yield directoryBytes;
  yield end;
}

/** The archive of `files` held in memory, in the order given (page images: a response's worth). */
export async function zipInMemory(files: Array<{ name: string; data: Uint8Array }>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of zipStream(files.map(({ name, data }) => ({ name, open: async () => [data] })))) chunks.push(chunk);
  return Buffer.concat(chunks);
}
