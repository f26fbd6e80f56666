/** Font files for the user-fonts tests: small OFL faces from the installed @expo-google-fonts packages, and files made from them. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { compress } from 'wawoff2';

const packageDir = (pkg: string) => dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`));

/** Noto Sans Thin Italic (OFL): a face the rendering layer does not carry, so a PDF that embeds it used the upload. */
export const thinItalicTtf = (): Buffer => readFileSync(join(packageDir('@expo-google-fonts/noto-sans'), '100Thin_Italic/NotoSans_100Thin_Italic.ttf'));

/** Noto Sans Black Italic (OFL), another face outside the layer. */
export const blackItalicTtf = (): Buffer => readFileSync(join(packageDir('@expo-google-fonts/noto-sans'), '900Black_Italic/NotoSans_900Black_Italic.ttf'));

/** The PostScript names pdffonts shows for the two faces. */
export const THIN_ITALIC_PS = 'NotoSans-ThinItalic';
export const BLACK_ITALIC_PS = 'NotoSans-BlackItalic';

/** `sfnt` as WOFF2 (Google's encoder). */
export async function toWoff2(sfnt: Uint8Array): Promise<Buffer> {
  return Buffer.from(await compress(sfnt));
}

/** `sfnt` as WOFF 1.0: each table deflated on its own, as the format says. */
export function toWoff(sfnt: Buffer): Buffer {
  const numTables = sfnt.readUInt16BE(4);
  const tables = Array.from({ length: numTables }, (_, i) => {
    const at = 12 + i * 16;
    const offset = sfnt.readUInt32BE(at + 8);
    const length = sfnt.readUInt32BE(at + 12);
    const data = sfnt.subarray(offset, offset + length);
    const packed = deflateSync(data);
    return { tag: sfnt.subarray(at, at + 4), checksum: sfnt.readUInt32BE(at + 4), data, packed: packed.length < data.length ? packed : data };
  });
  const pad = (n: number) => (n + 3) & ~3;
  let at = 44 + 20 * numTables;
  const header = Buffer.alloc(at);
  const bodies: Buffer[] = [];
  tables.forEach((table, i) => {
    const entry = 44 + i * 20;
    table.tag.copy(header, entry);
    header.writeUInt32BE(at, entry + 4);
    header.writeUInt32BE(table.packed.length, entry + 8);
    header.writeUInt32BE(table.data.length, entry + 12);
    header.writeUInt32BE(table.checksum, entry + 16);
    const body = Buffer.alloc(pad(table.packed.length));
    table.packed.copy(body);
    bodies.push(body);
    at += body.length;
  });
  header.write('wOFF', 0, 'latin1');
  header.writeUInt32BE(sfnt.readUInt32BE(0), 4);
  header.writeUInt32BE(at, 8);
  header.writeUInt16BE(numTables, 12);
  header.writeUInt32BE(tables.reduce((sum, t) => sum + pad(t.data.length), 12 + 16 * numTables), 16);
  return Buffer.concat([header, ...bodies]);
}

/** A WOFF2 header that claims to unpack to `claimed` bytes, followed by nothing a decoder could use. */
export function woff2Claiming(claimed: number): Buffer {
  const file = Buffer.alloc(64);
  file.write('wOF2', 0, 'latin1');
  file.writeUInt32BE(0x00010000, 4);
  file.writeUInt32BE(file.length, 8);
  file.writeUInt16BE(10, 12);
  file.writeUInt32BE(claimed, 16);
  return file;
}

/** A font collection holding `face` (a `ttcf` header naming one face). */
export function collectionOf(face: Buffer): Buffer {
  const header = Buffer.alloc(16);
  header.write('ttcf', 0, 'latin1');
  header.writeUInt32BE(0x00010000, 4);
  header.writeUInt32BE(1, 8);
  header.writeUInt32BE(16, 12);
  return Buffer.concat([header, face]);
}
