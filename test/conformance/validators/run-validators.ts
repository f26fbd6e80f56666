/**
 * The industry's validators for the conformance tests, from Maven Central
 * (test-only, never shipped): veraPDF for PDF/A and PDF/UA, Mustang for
 * Factur-X / ZUGFeRD. Their jars are resolved into `.cache/validators` on the
 * first run (Java 17 and Maven needed); each run validates many files in one
 * JVM, since starting the JVM is the slow part.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const here = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('../../..', import.meta.url));
const cache = join(root, '.cache', 'validators');

type Tool = 'verapdf' | 'mustang';

/** The class path of a validator, resolved by Maven into the ignored cache on first use. */
export async function validatorClassPath(tool: Tool): Promise<string> {
  const file = join(cache, `${tool}.classpath`);
  if (!existsSync(file)) {
    mkdirSync(cache, { recursive: true });
    await run(
      'mvn',
      ['-q', '-B', '-f', join(here, `${tool}-pom.xml`), `-Dmaven.repo.local=${join(cache, 'm2')}`, 'dependency:build-classpath', `-Dmdep.outputFile=${file}`],
      { maxBuffer: 16 * 1024 * 1024 },
    );
  }
  return readFileSync(file, 'utf8').trim();
}

async function runJava(tool: Tool, runner: string, args: string[]): Promise<string[]> {
  const classPath = await validatorClassPath(tool);
  // Java 11+ runs a single source file as is: no compile step, nothing built to keep.
  const { stdout } = await run('java', ['-Xmx1g', '-cp', classPath, join(here, runner), ...args], { maxBuffer: 256 * 1024 * 1024 });
  return stdout.split('\n').filter((line) => line.startsWith('{'));
}

/** veraPDF's flavour names for the levels the service produces. */
export const FLAVOURS = { 'PDF/A-2b': '2b', 'PDF/A-2u': '2u', 'PDF/A-3b': '3b', 'PDF/A-3u': '3u', 'PDF/UA-1': 'ua1' } as const;
export type Level = keyof typeof FLAVOURS;

export type VeraResult = {
  file: string;
  flavour: string;
  compliant: boolean;
  /** Rules in the profile that was checked. */
  rules?: number;
  failed?: Array<{ rule: string; count: number; message: string }>;
  error?: string;
};

/** Validates each `[level, file]` with veraPDF's profile for that level, in one JVM. */
export async function veraPdf(jobs: Array<[Level, string]>): Promise<VeraResult[]> {
  const lines = await runJava('verapdf', 'VeraRunner.java', jobs.flatMap(([level, file]) => [FLAVOURS[level], file]));
  return lines.map((line) => JSON.parse(line) as VeraResult);
}

export type MustangResult = { file: string; valid: boolean; report: string };

/** Validates e-invoices (the PDF/A-3 file and its embedded XML) with Mustang, in one JVM. */
export async function mustang(files: string[]): Promise<MustangResult[]> {
  const lines = await runJava('mustang', 'MustangRunner.java', files);
  return lines.map((line) => JSON.parse(line) as MustangResult);
}
