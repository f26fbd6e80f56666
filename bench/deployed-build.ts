import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions, Plugin } from 'esbuild';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Options of serverless-esbuild itself, not esbuild's: not passed on to the bench's build. */
const PLUGIN_ONLY = new Set(['exclude', 'outputFileExtension', 'packager', 'packagerOptions', 'installExtraArgs', 'nativeZip', 'keepOutputDirectory', 'concurrency', 'zipConcurrency', 'disposeContext', 'config', 'plugins', 'skipBuild', 'skipRebuild', 'skipBuildExcludeFns', 'stripEntryResolveExtensions', 'outputWorkFolder', 'outputBuildFolder', 'watch']);

/**
 * What serverless.yml deploys, read from it rather than copied so the two
 * cannot drift apart: `custom.esbuild` as esbuild options, and the
 * `NODE_OPTIONS` every function runs with (`provider.environment`).
 */
export function deployedBuild(file = join(root, 'serverless.yml')): { options: BuildOptions; nodeOptions: string | undefined } {
  // CloudFormation's tags (!Ref, !GetAtt…) elsewhere in the file are left unresolved: neither part uses them.
  const service = parse(readFileSync(file, 'utf8'), { logLevel: 'error' }) as {
    custom?: { esbuild?: Record<string, unknown> };
    provider?: { environment?: Record<string, unknown> };
  };
  const esbuild = service.custom?.esbuild;
  if (!esbuild) throw new Error(`${file} has no custom.esbuild`);
  const options = Object.fromEntries(Object.entries(esbuild).filter(([name]) => !PLUGIN_ONLY.has(name))) as BuildOptions;
  // serverless-esbuild's `plugins` names a file of esbuild plugins, relative to the service.
  if (typeof esbuild.plugins === 'string') options.plugins = createRequire(import.meta.url)(join(dirname(file), esbuild.plugins)) as Plugin[];
  if (typeof esbuild.outputFileExtension === 'string') options.outExtension = { '.js': esbuild.outputFileExtension };
  const nodeOptions = service.provider?.environment?.NODE_OPTIONS;
  return { options, nodeOptions: typeof nodeOptions === 'string' ? nodeOptions : undefined };
}
