import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createReadStream, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import * as zlib from 'node:zlib';
import chromium, { inflate } from '@sparticuz/chromium';
import { RenderError } from '../../errors.js';
import { isProcessAlive, isStillRunning, rememberProcess } from '../../process/process-identity.js';

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
  const lock = join(tmpdir(), UNPACK_LOCK);
  // The warm path: unpacked, and nobody unpacking.
  if (existsSync(target) && !existsSync(lock)) return chromium.executablePath();
  return withUnpackLock(lock, target, () => unpackHeld(packDir, target));
}

/** The folder a process holds while it unpacks into the shared temporary directory (it holds the holder's pid). */
export const UNPACK_LOCK = 'chromium.unpacking';

/** How long a process waits for another one's unpacking before it gives up. */
const UNPACK_WAIT_MS = 180_000;

/**
 * Runs `unpack` holding the temporary directory's unpack lock: processes that
 * share it (the local runtime's instances, a second function in a Lambda
 * sandbox) unpack one at a time, and none starts a binary another is still
 * writing. @sparticuz/chromium writes its binary in place and takes any file
 * at that path as unpacked, so a second process spawned a half-written
 * binary (ETXTBSY, "Chromium could not be started" within milliseconds).
 * A lock left by a process that died is taken over, and what it may have
 * half-written is removed first.
 */
async function withUnpackLock<T>(lock: string, target: string, unpack: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + UNPACK_WAIT_MS;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new RenderError('Chromium could not be unpacked', { cause: error });
    }
    if (await abandoned(lock)) {
      await rm(target, { force: true });
      await rm(lock, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new RenderError(`Chromium could not be unpacked: another process has held ${lock} for ${UNPACK_WAIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  try {
    // "pid start": a holder that died leaves its pid to whoever gets it next, and a live stranger must not hold the lock.
    await writeFile(join(lock, 'pid'), `${process.pid} ${rememberProcess(process.pid)?.start ?? ''}`.trim());
    return await unpack();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/** True when the lock's holder is gone: it no longer runs (its pid gone or another process's), or it never wrote its pid within 10 s. */
async function abandoned(lock: string): Promise<boolean> {
  const [pidText = '', start] = (await readFile(join(lock, 'pid'), 'utf8').catch(() => '')).trim().split(' ');
  const pid = Number(pidText);
  if (pidText === '' || !Number.isInteger(pid) || pid <= 0) {
    const made = await stat(lock).then((info) => info.mtimeMs, () => Date.now());
    return Date.now() - made > 10_000;
  }
  if (pid === process.pid) return false;
  // A lock written without a start time (an older release, or no /proc): the pid is all there is.
  return start === undefined ? !isProcessAlive(pid) : !isStillRunning({ pid, start });
}

async function unpackHeld(packDir: string | undefined, target: string): Promise<string> {
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
