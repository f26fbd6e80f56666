import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { inflateRawSync } from 'node:zlib';

/** One file in a zip archive, as its central directory describes it. */
export type ZipEntry = {
  name: string;
  compressedSize: number;
  size: number;
  method: number;
  /** Unix mode bits when the archive recorded them (serverless does: executables stay executable). */
  mode: number;
  localHeaderOffset: number;
};

/** Lists a zip archive's entries from its central directory (no ZIP64: Lambda's limits are far below 4 GB). */
export function listZip(file: string): { entries: ZipEntry[]; bytes: Buffer } {
  const bytes = readFileSync(file);
  let end = bytes.length - 22;
  while (end >= 0 && bytes.readUInt32LE(end) !== 0x06054b50) end -= 1;
  if (end < 0) throw new Error(`${file} is not a zip archive`);
  const count = bytes.readUInt16LE(end + 10);
  let offset = bytes.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i += 1) {
    if (bytes.readUInt32LE(offset) !== 0x02014b50) throw new Error(`${file}: broken central directory`);
    const nameLength = bytes.readUInt16LE(offset + 28);
    const extraLength = bytes.readUInt16LE(offset + 30);
    const commentLength = bytes.readUInt16LE(offset + 32);
    entries.push({
      method: bytes.readUInt16LE(offset + 10),
      compressedSize: bytes.readUInt32LE(offset + 20),
      size: bytes.readUInt32LE(offset + 24),
      mode: bytes.readUInt32LE(offset + 38) >>> 16,
      localHeaderOffset: bytes.readUInt32LE(offset + 42),
      name: bytes.toString('utf8', offset + 46, offset + 46 + nameLength),
    });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return { entries, bytes };
}

/** One entry's content, from the bytes `listZip` read. */
export function readZipEntry(bytes: Buffer, entry: ZipEntry): Buffer {
  const local = entry.localHeaderOffset;
  const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
  const raw = bytes.subarray(start, start + entry.compressedSize);
  return entry.method === 0 ? raw : inflateRawSync(raw);
}

/** Extracts a zip archive into `target`, keeping executable bits. */
export function extractZip(file: string, target: string): ZipEntry[] {
  const { entries, bytes } = listZip(file);
  for (const entry of entries) {
    const path = normalize(join(target, entry.name));
    if (!path.startsWith(normalize(target))) throw new Error(`${file}: ${entry.name} escapes the target`);
    if (entry.name.endsWith('/')) {
      mkdirSync(path, { recursive: true });
      continue;
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, readZipEntry(bytes, entry), { mode: entry.mode & 0o777 || 0o644 });
  }
  return entries;
}
