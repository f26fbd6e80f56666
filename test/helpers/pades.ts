/**
 * The independent checkers of the signing tests: pyHanko (the reference
 * open-source PAdES validator) and moto's server (a KMS and SSM speaking the
 * AWS protocol), both from PyPI, pinned, each in its own venv under `.cache/`
 * (ignored by git) made on the first run, as test/deploy/cfn-lint.ts does for
 * cfn-lint; and poppler's `pdfsig` (Debian's poppler-utils, as the other PDF tools).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as pkijs from 'pkijs';
import { issueCertificate, type DevPki } from '../../lib/signing/dev-pki.js';
import { pemCertificates, toPem } from '../../lib/signing/signer.js';
import { closedPort } from './closed-port.js';
import { tempDir } from './temp-dir.js';
import { waitFor } from './wait-for.js';

const PYHANKO_VERSION = '0.29.0';
const MOTO_VERSION = '5.2.5';
const root = fileURLToPath(new URL('../..', import.meta.url));

/** Creates `.cache/<name>` with `requirement` installed unless `probe` already exists there with `version`. */
export function ensureVenv(name: string, requirement: string, version: string, module: string): string {
  const venv = join(root, '.cache', name);
  const python = join(venv, 'bin', 'python');
  const installed = existsSync(python)
    ? spawnSync(python, ['-c', `import importlib.metadata as m; print(m.version('${module}'))`], { encoding: 'utf8' }).stdout.trim()
    : '';
  if (installed === version) return python;
  for (const [command, args] of [
    ['python3', ['-m', 'venv', venv]],
    [join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', requirement]],
  ] as const) {
    const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal})`);
  }
  return python;
}

/** What pyHanko says of one signature (test/helpers/pades-validate.py). */
export type PadesStatus = {
  field: string;
  intact: boolean;
  valid: boolean;
  trusted: boolean;
  bottomLine: boolean;
  coverage: string | null;
  modificationLevel: string | null;
  docmdp: string | null;
  subFilter: string;
  signer: string;
  timestamp: { intact: boolean; valid: boolean; trusted: boolean; time: string } | null;
  summary: string;
  /** A document timestamp (PAdES B-LTA): its own intact, valid, trusted, coverage and time; no signer, DocMDP or signature timestamp. */
  docTimeStamp?: true;
  time?: string;
};

/**
 * Validates every signature of `pdf` with pyHanko, trusting only `caPem`,
 * fetching nothing (revocation soft-fail). With `ltv`, pyHanko's long-term
 * validation of that PAdES profile instead: revocation information required
 * for every certificate and taken from the file's DSS only.
 * A signature that cannot even be read, or an LTV validation that finds no
 * DSS or trusted timestamp, makes pyHanko fail: that answers `undefined`.
 */
export function validatePades(
  pdf: Uint8Array,
  caPem: string,
  password?: string,
  ltv?: 'pades-lt' | 'pades-lta',
): { statuses?: PadesStatus[]; stderr: string } {
  const python = ensureVenv('pyhanko', `pyHanko==${PYHANKO_VERSION}`, PYHANKO_VERSION, 'pyHanko');
  const dir = tempDir('pades-');
  writeFileSync(join(dir, 'in.pdf'), pdf);
  writeFileSync(join(dir, 'ca.pem'), caPem);
  const args = [
    join(root, 'test', 'helpers', 'pades-validate.py'),
    join(dir, 'in.pdf'),
    join(dir, 'ca.pem'),
    ...(password ? [password] : []),
    ...(ltv ? [`--ltv=${ltv}`] : []),
  ];
  const result = spawnSync(python, args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (result.status !== 0) return { stderr: result.stderr };
  return { statuses: JSON.parse(result.stdout) as PadesStatus[], stderr: result.stderr };
}

/**
 * A signing certificate issued by the development CA of `pki` for a public
 * key held elsewhere (a KMS key's SPKI DER, a key made by OpenSSL), naming
 * the CA's CRL as its distribution point; answers the chain PEM (it, then the CA).
 */
export async function chainForKey(pki: DevPki, publicKey: Uint8Array, commonName: string): Promise<string> {
  const caKey = await crypto.subtle.importKey(
    'pkcs8',
    Buffer.from(pki.ca.privateKeyPem.replace(/-----[^-]+-----|\s/g, ''), 'base64'),
    { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const caDer = pemCertificates(pki.ca.certificatePem)[0] as Uint8Array;
  const certificate = await issueCertificate({
    commonName,
    kind: 'signer',
    publicKey,
    issuer: { certificate: pkijs.Certificate.fromBER(new Uint8Array(caDer).buffer as ArrayBuffer), privateKey: caKey },
    crlUrl: pki.crlUrl,
  });
  return toPem(new Uint8Array(certificate.toSchema().toBER(false)), 'CERTIFICATE') + pki.ca.certificatePem;
}

/** `pdfsig` of `pdf` (poppler), trusting nothing: its output names each signature's validity. */
export function pdfsig(pdf: Uint8Array): { status: number; stdout: string } {
  const dir = tempDir('pdfsig-');
  writeFileSync(join(dir, 'in.pdf'), pdf);
  const result = spawnSync('pdfsig', [join(dir, 'in.pdf')], { encoding: 'utf8' });
  if (result.error) throw new Error(`pdfsig could not run (apt-get install -y poppler-utils): ${result.error.message}`);
  return { status: result.status ?? -1, stdout: result.stdout + result.stderr };
}

/** moto's server on a loopback port, for KMS and SSM; `stop` ends it. */
export async function startMoto(): Promise<{ endpoint: string; stop: () => Promise<void> }> {
  const python = ensureVenv('moto', `moto[server]==${MOTO_VERSION}`, MOTO_VERSION, 'moto');
  const port = await closedPort();
  const child = spawn(join(python, '..', 'moto_server'), ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const endpoint = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Any answer means it listens (the first start compiles moto's modules: allow a minute).
  await waitFor('moto server', async () => ((await fetch(endpoint).catch(() => undefined)) ? true : undefined), 60_000);
  return {
    endpoint,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
