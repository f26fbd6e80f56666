/**
 * One unpack of the Chromium binary in a fresh process, for
 * `bench/unpack-candidates.ts`: waits for the parent's "go" (sent once this
 * process sits in the CPU-share group), unpacks `source` into `target` the
 * way `method` says, and reports the milliseconds it took.
 */
import { createReadStream, createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { constants, createBrotliDecompress, createZstdDecompress, zstdDecompressSync } from 'node:zlib';

type Order = { method: 'brotli-stream' | 'zstd-stream' | 'zstd-buffer'; source: string; target: string };

const order = await new Promise<Order>((resolve) => {
  process.once('message', (message) => resolve(message as Order));
  process.send?.('ready');
});
const started = performance.now();
const { method, source, target } = order;
if (method === 'brotli-stream') {
  // What @sparticuz/chromium's inflate() does: 4 MB reads, 2 MB output chunks.
  await pipeline(createReadStream(source, { highWaterMark: 2 ** 22 }), createBrotliDecompress({ chunkSize: 2 ** 21 }), createWriteStream(target, { mode: 0o700 }));
} else if (method === 'zstd-stream') {
  await pipeline(
    createReadStream(source, { highWaterMark: 2 ** 22 }),
    createZstdDecompress({ chunkSize: 2 ** 21, params: { [constants.ZSTD_d_windowLogMax]: 31 } }),
    createWriteStream(target, { mode: 0o700 }),
  );
} else {
  writeFileSync(target, zstdDecompressSync(readFileSync(source)), { mode: 0o700 });
}
const { user, system } = process.cpuUsage();
process.send?.({ ms: performance.now() - started, cpuMs: (user + system) / 1000 });
process.exit(0);
