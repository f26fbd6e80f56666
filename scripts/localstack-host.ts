/**
 * `npm run localstack:host [-- --run <command> [args…]]`: LocalStack's
 * DynamoDB, S3 and SQS on http://127.0.0.1:4566 without Docker (host mode),
 * from PyPI and Maven Central only, pinned, set up once under .cache/localstack.
 *
 * Since March 2026 LocalStack's Docker image needs an auth token; its
 * runtime, `localstack-core` on PyPI, does not, and runs as a plain Python
 * process. What it takes (localstack/README.md says why each):
 *   - Python 3.13 and the exact packages of localstack/host/constraints.txt in a venv;
 *   - DynamoDB Local from Maven Central (localstack/host/dynamodb-local-pom.xml)
 *     where LocalStack's installer looks for it, and the small Java agent
 *     LocalStack starts it with, built from localstack/host/ddb-local-loader;
 *   - the settings of LOCALSTACK_ENVIRONMENT below.
 *
 * Without --run it serves until Ctrl+C (then `npm run start:localstack`);
 * with --run it starts LocalStack, runs the command with TEST_AWS_ENDPOINT
 * pointing at it (the test helpers then use it instead of the embedded
 * emulators), stops LocalStack whatever happens and exits with the command's status.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ListTablesCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { rememberTree, signalAll, waitGone } from './local-runtime/process-tree.js';
import { rememberProcess, signalGroup } from '../lib/process/process-identity.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const HOST_DIR = join(root, 'localstack', 'host');
const CACHE = join(root, '.cache', 'localstack');
const VENV = join(CACHE, 'venv');
const M2 = join(CACHE, 'm2');
/** LocalStack's FILESYSTEM_ROOT in host mode: its var_libs (installed packages) and tmp live below it. */
const FILESYSTEM_ROOT = join(CACHE, 'filesystem');
const VAR_LIBS = join(FILESYSTEM_ROOT, 'var', 'lib', 'localstack', 'lib');
/** Where LocalStack's DynamoDBLocalPackageInstaller (services/dynamodb/packages.py) looks: <var_libs>/dynamodb-local/2. */
const DYNAMODB_LOCAL_DIR = join(VAR_LIBS, 'dynamodb-local', '2');
/** The Java it runs DynamoDB Local with: <var_libs>/java/21 (it would download one otherwise). */
const JAVA_DIR = join(VAR_LIBS, 'java', '21');
const LOG_FILE = join(CACHE, 'localstack.log');

export const LOCALSTACK_ENDPOINT = 'http://127.0.0.1:4566';
const REGION = 'us-east-1';

/** Everything LocalStack host mode needs told, each for a reason found running it on a machine like CI's. */
export const LOCALSTACK_ENVIRONMENT: Record<string, string> = {
  // It takes any machine with /.dockerenv or a container cgroup for its own image, and looks for /opt/code/localstack.
  OVERRIDE_IN_DOCKER: '0',
  // The default (twisted) gateway binds every interface; hypercorn binds what GATEWAY_LISTEN says.
  GATEWAY_SERVER: 'hypercorn',
  GATEWAY_LISTEN: '127.0.0.1:4566',
  LOCALSTACK_HOST: '127.0.0.1:4566',
  // No certificate download (a host CI cannot reach), no DNS server on port 53, no analytics.
  SKIP_SSL_CERT_DOWNLOAD: '1',
  DNS_ADDRESS: '0',
  DISABLE_EVENTS: '1',
  // Only what DocRender uses (KMS: the signing tests' keys), started at boot so that "ready" means ready.
  SERVICES: 'dynamodb,s3,sqs,kms',
  EAGER_SERVICE_LOADING: '1',
  // Queue URLs on the endpoint the client used, not on *.localhost.localstack.cloud (public DNS).
  SQS_ENDPOINT_STRATEGY: 'path',
  FILESYSTEM_ROOT,
  AWS_DEFAULT_REGION: REGION,
};

function log(line: string): void {
  process.stderr.write(`[localstack:host] ${line}\n`);
}

function run(command: string, args: string[], options: { cwd?: string } = {}): void {
  const result = spawnSync(command, args, { cwd: options.cwd ?? root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal ?? result.error?.message})`);
}

function digest(...files: string[]): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(readFileSync(file));
  return hash.digest('hex');
}

/** Runs `install` unless the stamp file holds `key` already, then writes it: a changed pin reinstalls. */
function installOnce(stamp: string, key: string, install: () => void): void {
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === key) return;
  rmSync(stamp, { force: true });
  install();
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, key);
}

/** Python 3.13: LOCALSTACK_PYTHON, `python3.13` on PATH, or a pyenv 3.13. localstack-core 2026.x does not parse on 3.11. */
function findPython(): string {
  const pyenv = join(process.env.PYENV_ROOT ?? join(homedir(), '.pyenv'), 'versions');
  const candidates = [
    process.env.LOCALSTACK_PYTHON,
    'python3.13',
    ...(existsSync(pyenv) ? readdirSync(pyenv).filter((version) => version.startsWith('3.13')).map((version) => join(pyenv, version, 'bin', 'python3.13')) : []),
  ].filter((candidate): candidate is string => Boolean(candidate));
  for (const candidate of candidates) {
    const probe = spawnSync(candidate, ['-c', 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 13) else 1)'], { stdio: 'ignore' });
    if (probe.status === 0) return candidate;
  }
  throw new Error(`no Python 3.13 found (tried ${candidates.join(', ')}): install it or set LOCALSTACK_PYTHON`);
}

function ensurePythonRuntime(): void {
  const constraints = join(HOST_DIR, 'constraints.txt');
  installOnce(join(CACHE, 'venv.stamp'), digest(constraints), () => {
    const python = findPython();
    log(`installing localstack-core into ${VENV} with ${python}`);
    run(python, ['-m', 'venv', '--clear', VENV]);
    run(join(VENV, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', '-c', constraints, 'localstack-core[runtime]', 'service-identity']);
  });
}

/** JAVA_HOME of the `java` on PATH (17 or newer, as DynamoDB Local 3 needs). */
function javaHome(): string {
  const which = spawnSync('sh', ['-c', 'command -v java'], { encoding: 'utf8' }).stdout.trim();
  if (!which) throw new Error('java is not on PATH: DynamoDB Local needs Java 17 or newer');
  const version = spawnSync('java', ['-XshowSettings:properties', '-version'], { encoding: 'utf8' }).stderr;
  const major = Number(/java\.specification\.version = (\d+)/.exec(version)?.[1]);
  if (!(major >= 17)) throw new Error(`DynamoDB Local needs Java 17 or newer, the java on PATH is ${major || 'unknown'}`);
  return dirname(dirname(realpathSync(which)));
}

/**
 * DynamoDB Local and its libraries from Maven Central into DynamoDBLocal_lib,
 * a DynamoDBLocal.jar whose manifest puts them (and javassist, for the agent)
 * on the class path, as LocalStack runs `java -jar DynamoDBLocal.jar`, and
 * the agent jar under the name LocalStack passes to -javaagent.
 */
function ensureDynamoDbLocal(): void {
  const pom = join(HOST_DIR, 'dynamodb-local-pom.xml');
  const agentPom = join(HOST_DIR, 'ddb-local-loader', 'pom.xml');
  const agentSource = join(HOST_DIR, 'ddb-local-loader', 'src', 'main', 'java', 'docrender', 'localstack', 'GsiLimitAgent.java');
  const home = javaHome();
  installOnce(join(CACHE, 'dynamodb-local.stamp'), `${digest(pom, agentPom, agentSource)} ${home}`, () => {
    log('installing DynamoDB Local from Maven Central and building the GSI agent');
    rmSync(DYNAMODB_LOCAL_DIR, { recursive: true, force: true });
    const lib = join(DYNAMODB_LOCAL_DIR, 'DynamoDBLocal_lib');
    mvn(pom, ['dependency:copy-dependencies', `-DoutputDirectory=${lib}`]);
    mvn(agentPom, ['package']);
    copyFileSync(join(CACHE, 'ddb-local-loader-build', 'ddb-local-loader-0.1.jar'), join(DYNAMODB_LOCAL_DIR, 'ddb-local-loader-0.1.jar'));
    const files = readdirSync(lib);
    // sqlite4java loads its library by the plain name as well as the versioned one Maven gives it.
    for (const file of files.filter((name) => /^libsqlite4java-.*-\d[\d.]*\.(so|dylib|dll)$/.test(name))) {
      copyFileSync(join(lib, file), join(lib, file.replace(/-\d[\d.]*\.(so|dylib|dll)$/, '.$1')));
    }
    const jars = files.filter((name) => name.endsWith('.jar')).map((name) => `DynamoDBLocal_lib/${name}`);
    writeLauncherJar(join(DYNAMODB_LOCAL_DIR, 'DynamoDBLocal.jar'), 'software.amazon.dynamodb.services.local.main.ServerRunner', ['.', ...jars]);
    rmSync(JAVA_DIR, { recursive: true, force: true });
    mkdirSync(dirname(JAVA_DIR), { recursive: true });
    symlinkSync(home, JAVA_DIR);
  });
}

function mvn(pom: string, goals: string[]): void {
  run('mvn', ['-q', '-B', '-Dstyle.color=never', '-f', pom, `-Dmaven.repo.local=${M2}`, ...goals]);
}

/** A jar holding nothing but a manifest (Main-Class, Class-Path), written with the venv's Python zipfile. */
function writeLauncherJar(file: string, mainClass: string, classPath: string[]): void {
  const manifest = `Manifest-Version: 1.0\r\nMain-Class: ${mainClass}\r\n${manifestLine(`Class-Path: ${classPath.join(' ')}`)}\r\n`;
  const script = 'import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], "w") as jar:\n    jar.writestr("META-INF/MANIFEST.MF", sys.stdin.read())\n';
  const result = spawnSync(join(VENV, 'bin', 'python'), ['-c', script, file], { input: manifest, stdio: ['pipe', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error(`could not write ${file}`);
}

/** A manifest header folded as the JAR specification wants: 72 bytes a line, continuation lines start with a space. */
function manifestLine(header: string): string {
  const lines = [header.slice(0, 72)];
  for (let at = 72; at < header.length; at += 71) lines.push(` ${header.slice(at, at + 71)}`);
  return lines.join('\r\n');
}

export type RunningLocalStack = { endpoint: string; stop(): Promise<void> };

/** Installs what is missing, starts LocalStack and waits until DynamoDB, S3 and SQS answer. */
export async function startLocalStackHost(output: 'inherit' | 'log'): Promise<RunningLocalStack> {
  ensurePythonRuntime();
  ensureDynamoDbLocal();
  mkdirSync(CACHE, { recursive: true });
  const logFd = output === 'log' ? openSync(LOG_FILE, 'w') : 'inherit';
  // Its own process group: LocalStack's children (DynamoDB Local's java) are stopped with it.
  const child = spawn(join(VENV, 'bin', 'python'), ['-m', 'localstack.runtime.main'], {
    cwd: CACHE,
    env: { ...process.env, ...LOCALSTACK_ENVIRONMENT },
    stdio: ['ignore', logFd, logFd],
    detached: true,
  });
  // The child holds its own copy of the log file.
  if (typeof logFd === 'number') closeSync(logFd);
  const stop = () => stopGroup(child);
  try {
    await waitUntilServing(child);
  } catch (error) {
    await stop();
    if (output === 'log') process.stderr.write(readFileSync(LOG_FILE, 'utf8').slice(-8000));
    throw error;
  }
  return { endpoint: LOCALSTACK_ENDPOINT, stop };
}

/** Hypercorn does not exit on SIGTERM: TERM the group, then KILL it if it is still there after a few seconds. */
async function stopGroup(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  const leader = pid === undefined ? undefined : rememberProcess(pid);
  if (leader === undefined) return;
  // Only while the leader is still that process: a group's number is its leader's pid, free for others once it is gone.
  const signal = (name: NodeJS.Signals) => signalGroup(leader, name);
  const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit').then(() => undefined);
  // LocalStack may start DynamoDB Local's JVM in a session of its own, out of reach of a group signal (one
  // was seen left running after a quick --run): its whole tree is read first, by parent links, and ended too.
  const tree = rememberTree(leader.pid).slice(1);
  signal('SIGTERM');
  const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 5_000).unref());
  if ((await Promise.race([exited, timer])) === 'timeout') signal('SIGKILL');
  await exited;
  // What it started (DynamoDB Local) may outlive the parent, in the group or not: the same processes, not later
  // ones that took a freed pid.
  signalAll(tree, 'SIGKILL');
  await waitGone(tree, 5_000);
}

async function waitUntilServing(child: ChildProcess): Promise<void> {
  const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
  const clients = {
    dynamodb: new DynamoDBClient({ region: REGION, endpoint: LOCALSTACK_ENDPOINT, credentials, maxAttempts: 1 }),
    s3: new S3Client({ region: REGION, endpoint: LOCALSTACK_ENDPOINT, credentials, forcePathStyle: true, maxAttempts: 1 }),
    sqs: new SQSClient({ region: REGION, endpoint: LOCALSTACK_ENDPOINT, credentials, maxAttempts: 1 }),
  };
  // A hang guard: about 15 s on a quiet machine, DynamoDB Local's JVM being the slowest part.
  const deadline = Date.now() + 180_000;
  let last = '';
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`LocalStack exited (${child.exitCode ?? child.signalCode})`);
      try {
        await clients.dynamodb.send(new ListTablesCommand({}));
        await clients.s3.send(new ListBucketsCommand({}));
        await clients.sqs.send(new ListQueuesCommand({}));
        return;
      } catch (error) {
        last = error instanceof Error ? error.message : String(error);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    throw new Error(`LocalStack did not serve DynamoDB, S3 and SQS on ${LOCALSTACK_ENDPOINT} within 180 s (last: ${last})`);
  } finally {
    for (const client of Object.values(clients)) client.destroy();
  }
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const runAt = args.indexOf('--run');
  const command = runAt >= 0 ? args.slice(runAt + 1) : [];
  if ((runAt >= 0 && command.length === 0) || (runAt < 0 && args.length > 0)) {
    process.stderr.write('Usage: npm run localstack:host [-- --run <command> [args…]]\n');
    return 2;
  }
  const started = performance.now();
  const localstack = await startLocalStackHost(command.length ? 'log' : 'inherit');
  log(`DynamoDB, S3 and SQS on ${localstack.endpoint} (ready in ${Math.round((performance.now() - started) / 1000)} s)`);
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= localstack.stop());
  if (!command.length) {
    log('Ctrl+C stops it. In another shell: npm run start:localstack');
    await new Promise<void>((resolve) => {
      for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(name, () => resolve());
    });
    await stop();
    return 0;
  }
  const [program, ...programArgs] = command as [string, ...string[]];
  const child = spawn(program, programArgs, { cwd: root, stdio: 'inherit', env: { ...process.env, TEST_AWS_ENDPOINT: localstack.endpoint } });
  for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(name, () => child.kill(name));
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  await stop();
  log(`LocalStack stopped; log in ${LOG_FILE}`);
  return code ?? (signal ? 1 : 0);
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main().catch((error: unknown) => {
    log(error instanceof Error ? error.message : String(error));
    return 1;
  });
}
