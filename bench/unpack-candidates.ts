/**
 * How fast each candidate form of the Chromium binary unpacks into a fresh
 * folder, under the function's CPU share: the measurement behind the form the
 * layer ships (`lib/render/chromium-pack.ts`). Each run is a fresh process
 * writing a fresh file; the candidates alternate round by round so that the
 * load of a shared machine does not land on one of them only.
 *
 *   npm run bench:unpack [-- --runs 5] [--levels 3,9,12,19] [--memory 1536]
 *
 * The zstd files are made once (Node's zlib, as the layer build makes them)
 * and cached in .cache/unpack/. The source file is read from the page cache
 * after its first run, on Lambda a fresh environment reads the layer from its
 * disk: smaller files win a little more there than here.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { brotliDecompressSync } from 'node:zlib';
import { openCpuShare, MB_PER_VCPU } from './cpu-share.js';
import { compressChromium, packageBinDir } from '../scripts/build-layer.js';
import { summarize } from './stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const CACHE = join(root, '.cache', 'unpack');

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, levels: { type: 'string', default: '3,9,12,19' }, memory: { type: 'string', default: '1536' } },
});
const runs = Number(values.runs);
const levels = values.levels.split(',').map(Number);
const vcpu = Number(values.memory) / MB_PER_VCPU;

mkdirSync(CACHE, { recursive: true });
const brotliFile = join(packageBinDir(), 'chromium.br');
const binary = brotliDecompressSync(readFileSync(brotliFile));
const digest = createHash('sha256').update(binary).digest('hex');
const candidates: Array<{ name: string; method: 'brotli-stream' | 'zstd-stream' | 'zstd-buffer'; source: string }> = [
  { name: 'brotli (as shipped), stream', method: 'brotli-stream', source: brotliFile },
];
const compressMs: Record<string, number> = {};
for (const level of levels) {
  const file = join(CACHE, `chromium-${digest.slice(0, 12)}-zstd${level}.zst`);
  if (!existsSync(file)) {
    const started = performance.now();
    writeFileSync(file, await compressChromium(binary, level));
    compressMs[`zstd ${level}`] = performance.now() - started;
  }
  candidates.push({ name: `zstd ${level}, stream`, method: 'zstd-stream', source: file });
  candidates.push({ name: `zstd ${level}, whole buffer`, method: 'zstd-buffer', source: file });
}

const share = openCpuShare('unpack');
share?.limit(vcpu);
const times = new Map<string, number[]>(candidates.map((c) => [c.name, []]));
const cpu = new Map<string, number[]>(candidates.map((c) => [c.name, []]));
try {
  for (let round = 0; round < runs + 1; round++) {
    for (const candidate of candidates) {
      const dir = mkdtempSync(join(tmpdir(), 'docrender-unpack-'));
      const target = join(dir, 'chromium');
      try {
        const child = fork(join(root, 'bench', 'unpack-worker.ts'), { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
        await once(child, 'message');
        if (child.pid !== undefined) share?.add([child.pid]);
        child.send({ method: candidate.method, source: candidate.source, target });
        const [report] = (await once(child, 'message')) as [{ ms: number; cpuMs: number }];
        await once(child, 'exit');
        // The first round warms the page cache for every file alike: not counted.
        if (round === 0) {
          const unpacked = createHash('sha256').update(readFileSync(target)).digest('hex');
          if (unpacked !== digest) throw new Error(`${candidate.name} did not give the shipped binary back`);
          continue;
        }
        times.get(candidate.name)?.push(report.ms);
        cpu.get(candidate.name)?.push(report.cpuMs);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
} finally {
  share?.close();
}

const median = (values: number[]) => summarize(values).median;
const base = median(times.get(candidates[0]!.name)!);
console.log(`Chromium ${(binary.length / 1024 / 1024).toFixed(1)} MB unpacked; ${runs} runs each, ${share ? `${vcpu.toFixed(2)} vCPU (${share.kind})` : 'no CPU limit (no writable cgroup)'}; shared machine: compare within this run`);
console.log('| Candidate | File MB | Unpack ms (median) | CPU ms (median) | × brotli |');
console.log('|---|---:|---:|---:|---:|');
for (const c of candidates) {
  const ms = median(times.get(c.name)!);
  console.log(`| ${c.name} | ${(statSync(c.source).size / 1024 / 1024).toFixed(1)} | ${ms.toFixed(0)} | ${median(cpu.get(c.name)!).toFixed(0)} | ${(ms / base).toFixed(2)} |`);
}
for (const [name, ms] of Object.entries(compressMs)) console.log(`compressing ${name} took ${(ms / 1000).toFixed(1)} s`);
