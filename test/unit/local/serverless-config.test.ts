import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LocalSetupError } from '../../../lib/local/errors.js';
import {
  createVariableResolver,
  listFunctions,
  parseServerlessYaml,
  type LoadedServerless,
  type ServerlessConfig,
} from '../../../lib/local/serverless-config.js';

const YAML = `
service: shop
provider:
  stage: \${opt:stage, 'dev'}
  region: \${opt:region, 'eu-west-1'}
params:
  default: { memory: 512, domain: 'dev.example.com' }
  prod: { memory: 2048 }
custom:
  table: \${self:service}-\${sls:stage}-orders
  bucket: \${self:service}-files-\${aws:accountId}-\${aws:region}
  fromEnv: \${env:SHOP_COLOR, 'blue'}
  chained: \${env:SHOP_MISSING, \${env:SHOP_ALSO_MISSING, 'last resort'}}
  perStage: \${self:custom.stages.\${sls:stage}.size}
  stages: { dev: { size: 1 }, prod: { size: 3 } }
  memory: \${param:memory}
  domain: \${param:domain}
  whole: \${self:custom.stages}
  count: \${env:SHOP_MISSING, 7}
  cfn: !Sub 'arn:\${AWS::Partition}:s3:::\${Bucket}/\${self:service}/*'
  ref: !Ref OrdersTable
  att: !GetAtt OrdersQueue.Arn
  joined: !Join ['-', [!Ref A, b]]
  secret: \${ssm:/shop/secret}
  noValue: \${env:SHOP_MISSING}
  noAccount: \${aws:accountId}
  loop: \${self:custom.loopBack}
  loopBack: \${self:custom.loop}
  embedded: prefix-\${self:custom.stages}
`;

function resolver(opts: Parameters<typeof createVariableResolver>[1] = {}) {
  return createVariableResolver(parseServerlessYaml(YAML), { env: { SHOP_COLOR: 'green' }, accountId: '123456789012', ...opts });
}

describe('parseServerlessYaml', () => {
  it('turns CloudFormation short tags into their long form', () => {
    // Act
    const raw = parseServerlessYaml(YAML) as { custom: Record<string, unknown> };

    // Assess
    assert.deepEqual(raw.custom.ref, { Ref: 'OrdersTable' });
    assert.deepEqual(raw.custom.att, { 'Fn::GetAtt': ['OrdersQueue', 'Arn'] });
    assert.deepEqual(raw.custom.joined, { 'Fn::Join': ['-', [{ Ref: 'A' }, 'b']] });
  });
});

describe('createVariableResolver', () => {
  it('resolves self, sls:stage, opt and aws variables into one string', () => {
    // Act
    const r = resolver({ stage: 'prod' });

    // Assess
    assert.equal(r.resolvePath('custom.table'), 'shop-prod-orders');
    assert.equal(r.resolvePath('custom.bucket'), 'shop-files-123456789012-eu-west-1');
    assert.equal(r.stage(), 'prod');
  });

  it('falls back to the defaults written in serverless.yml when no option is given', () => {
    // Act
    const r = resolver();

    // Assess
    assert.equal(r.stage(), 'dev');
    assert.equal(r.region(), 'eu-west-1');
    assert.equal(r.resolvePath('custom.table'), 'shop-dev-orders');
  });

  it('reads env variables and walks a chain of fallbacks', () => {
    // Act
    const r = resolver();

    // Assess
    assert.equal(r.resolvePath('custom.fromEnv'), 'green');
    assert.equal(r.resolvePath('custom.chained'), 'last resort');
    assert.equal(r.resolvePath('custom.count'), 7);
  });

  it('resolves variables inside an address and keeps the type of a whole-value variable', () => {
    // Act
    const r = resolver({ stage: 'prod' });

    // Assess
    assert.equal(r.resolvePath('custom.perStage'), 3);
    assert.deepEqual(r.resolvePath('custom.whole'), { dev: { size: 1 }, prod: { size: 3 } });
  });

  it('takes params from the stage, then from default, then from the command line first', () => {
    // Act
    const prod = resolver({ stage: 'prod' });
    const override = resolver({ stage: 'prod', params: { memory: '4096' } });

    // Assess
    assert.equal(prod.resolvePath('custom.memory'), 2048);
    assert.equal(prod.resolvePath('custom.domain'), 'dev.example.com');
    assert.equal(override.resolvePath('custom.memory'), '4096');
  });

  it('leaves CloudFormation substitutions to CloudFormation while resolving its own', () => {
    // Act
    const value = resolver().resolvePath('custom.cfn');

    // Assess
    assert.deepEqual(value, { 'Fn::Sub': 'arn:${AWS::Partition}:s3:::${Bucket}/shop/*' });
  });

  for (const [path, problem] of [
    ['custom.secret', /unsupported variable \$\{ssm:\/shop\/secret\}/],
    ['custom.noValue', /custom\.noValue: \$\{env:SHOP_MISSING\} has no value and no fallback/],
    ['custom.loop', /circular/],
    ['custom.embedded', /is an object and cannot be part of a string/],
  ] as const) {
    it(`throws LocalSetupError naming the place for ${path}`, () => {
      // Act & Assess
      assert.throws(() => resolver().resolvePath(path), (error) => {
        assert.ok(error instanceof LocalSetupError);
        assert.match(error.message, problem);
        return true;
      });
    });
  }

  it('refuses ${aws:accountId} when no account id is known', () => {
    // Act & Assess
    assert.throws(() => resolver({ accountId: undefined }).resolvePath('custom.noAccount'), /needs an AWS account id/);
  });
});

describe('listFunctions', () => {
  it('normalises httpApi, sqs and schedule events with Serverless defaults', () => {
    // Prepare
    const config = {
      service: 'shop',
      provider: { stage: 'dev', region: 'us-east-1', timeout: 20 },
      functions: {
        api: {
          handler: 'functions/api.handler',
          events: [{ httpApi: 'get /orders/{id}' }, { httpApi: { method: '*', path: '/any' } }, { httpApi: '*' }],
        },
        worker: {
          handler: 'functions/worker.handler',
          name: 'custom-worker',
          timeout: 60,
          memorySize: 256,
          events: [
            { sqs: { arn: { 'Fn::GetAtt': ['Q', 'Arn'] }, batchSize: 3, functionResponseType: 'ReportBatchItemFailures' } },
            { schedule: { rate: ['rate(5 minutes)', 'cron(0 * * * ? *)'], enabled: false } },
          ],
        },
      },
      resources: { Resources: {} },
    } satisfies ServerlessConfig;
    const loaded: LoadedServerless = { file: '/x/serverless.yml', serviceDir: '/x', config };

    // Act
    const [api, worker] = listFunctions(loaded);

    // Assess
    assert.deepEqual(api?.httpRoutes, [
      { routeKey: 'GET /orders/{id}', method: 'GET', path: '/orders/{id}' },
      { routeKey: 'ANY /any', method: 'ANY', path: '/any' },
      { routeKey: '$default', method: 'ANY', path: '' },
    ]);
    assert.equal(api?.name, 'shop-dev-api');
    assert.equal(api?.timeoutSeconds, 20);
    assert.equal(api?.memoryMb, 1024);
    assert.equal(worker?.name, 'custom-worker');
    assert.equal(worker?.timeoutSeconds, 60);
    assert.deepEqual(worker?.sqsEvents, [
      {
        arn: { 'Fn::GetAtt': ['Q', 'Arn'] },
        batchSize: 3,
        reportBatchItemFailures: true,
        maximumConcurrency: undefined,
        enabled: true,
      },
    ]);
    assert.deepEqual(
      worker?.schedules.map((schedule) => [schedule.expression, schedule.enabled]),
      [
        ['rate(5 minutes)', false],
        ['cron(0 * * * ? *)', false],
      ],
    );
  });
});
