import { existsSync } from 'node:fs';
import { chmod, rename, rm } from 'node:fs/promises';
import { createReadStream, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import * as zlib from 'node:zlib';
import chromium, { inflate } from '@sparticuz/chromium';
import { RenderError } from '../../errors.js';

/** The Chromium binary, zstd-compressed, inside the Chromium layer (`npm run build:layer`). */
export const CHROMIUM_PACK_FILE = 'chromium/chromium.zst';

/** The archives @sparticuz/chromium inflates beside its binary; the layer carries them next to the pack as they ship. */
export const CHROMIUM_PACK_ARCHIVES = ['fonts.tar.br', 'swiftshader.tar.br', 'al2023.tar.br'];

/** Where Lambda mounts the layer's pack (layers are mounted at /opt). */
export const LAMBDA_CHROMIUM_PACK_DIR = '/opt/chromium';

/**
 * Unpacks Chromium into the temporary directory once per environment and
 * returns the binary's path. From the layer's pack (`packDir`: chromium.zst
 * and the package's own .tar.br archives) when there is one: zstd inflates
 * the 200 MB binary about four times faster than the brotli file
 * @sparticuz/chromium ships, and every fresh execution environment starts
 * with an empty /tmp, so this is on every cold start's path. Without a pack
 * (a developer's machine, the tests), @sparticuz/chromium unpacks its own.
 *
 * The binary lands where @sparticuz/chromium puts it (<tmp>/chromium), and
 * only once whole (written aside, then renamed), after its archives: a
 * binary present means everything is, for this code and the package alike.
 */
export async function unpackChromium(packDir: string | undefined): Promise<string> {
  const target = join(tmpdir(), 'chromium');
  const pack = packDir === undefined ? undefined : join(packDir, 'chromium.zst');
  if (existsSync(target) || pack === undefined || !existsSync(pack)) return chromium.executablePath();
  if (typeof zlib.createZstdDecompress !== 'function') {
    throw new RenderError(`This Node.js (${process.version}) cannot unpack ${pack}: zstd needs Node.js 22.15 or later`);
  }
  const partial = `${target}.${process.pid}.partial`;
  try {
    await Promise.all([
      pipeline(createReadStream(pack, { highWaterMark: 2 ** 22 }), zlib.createZstdDecompress({ chunkSize: 2 ** 21 }), createWriteStream(partial, { mode: 0o700 })),
      ...archivesToInflate(packDir as string).map((archive) => inflate(archive)),
    ]);
    await chmod(partial, 0o700);
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { force: true });
    throw new RenderError('Chromium could not be unpacked', { cause: error });
  }
  return target;
}

/**
 * The archives the package would inflate here: its fonts and SwiftShader
 * always, its Amazon Linux 2023 libraries where it has pointed
 * LD_LIBRARY_PATH at them (it decides that when it is imported).
 */
function archivesToInflate(packDir: string): string[] {
  const al2023 = (process.env.LD_LIBRARY_PATH ?? '').split(':').includes(join(tmpdir(), 'al2023', 'lib'));
  return CHROMIUM_PACK_ARCHIVES.filter((name) => name !== 'al2023.tar.br' || al2023)
    .map((name) => join(packDir, name))
    .filter((file) => existsSync(file));
}
