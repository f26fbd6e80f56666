/**
 * cfn-lint, AWS's own CloudFormation linter, from PyPI, pinned, into
 * `.cache/cfn-lint` (a venv, ignored by git) on the first run, as
 * test/api-fuzz/run.ts does for Schemathesis.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const CFN_LINT_VERSION = '1.58.0';
const root = fileURLToPath(new URL('../..', import.meta.url));
const venv = join(root, '.cache', 'cfn-lint');
const cfnLint = join(venv, 'bin', 'cfn-lint');
/** The project's configuration: the rules it ignores, each with its reason. */
export const CFN_LINT_CONFIG = join(root, '.cfnlintrc.yaml');

/** One finding of `cfn-lint --format json`. */
export type CfnLintMatch = {
  Level: 'Error' | 'Warning' | 'Informational';
  Message: string;
  Rule: { Id: string };
  Location: { Path: Array<string | number> };
};

/** Creates the venv and installs the pinned cfn-lint unless it is there already. */
function ensureCfnLint(): void {
  const installed = existsSync(cfnLint) ? spawnSync(cfnLint, ['--version'], { encoding: 'utf8' }).stdout : '';
  if (installed.includes(CFN_LINT_VERSION)) return;
  for (const [command, args] of [
    ['python3', ['-m', 'venv', venv]],
    [join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', `cfn-lint==${CFN_LINT_VERSION}`]],
  ] as const) {
    const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal})`);
  }
}

/**
 * Lints `template` with `configFile` (the project's by default) and returns
 * every finding, errors, warnings and informational ones alike.
 */
export async function lintTemplate(template: string, configFile = CFN_LINT_CONFIG): Promise<CfnLintMatch[]> {
  ensureCfnLint();
  // Exit codes 2, 4 and 8 say which levels were found: the JSON says the same, read that.
  const { stdout } = await promisify(execFile)(cfnLint, ['--config-file', configFile, '--format', 'json', '--non-zero-exit-code', 'none', '--', template], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as CfnLintMatch[];
}
