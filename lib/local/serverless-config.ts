import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, type CollectionTag, type ScalarTag } from 'yaml';
import { LocalSetupError } from './errors.js';

/** What `serverless deploy` would be told on its command line, plus where values come from locally. */
export type ServerlessOptions = {
  /** `--stage`; otherwise provider.stage, otherwise `dev`. */
  stage?: string;
  /** `--region`; otherwise provider.region, otherwise `us-east-1`. */
  region?: string;
  /** Value of `${aws:accountId}`. When absent, a config that uses it fails to resolve. */
  accountId?: string;
  /** Source of `${env:…}`; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** `--param name=value` pairs, ahead of the `params:` block. */
  params?: Record<string, string>;
};

/** A CloudFormation resource as declared under `resources.Resources`. */
export type CfnResource = { Type: string; Properties?: Record<string, unknown>; Condition?: string };

export type ServerlessFunctionConfig = {
  handler: string;
  name?: string;
  timeout?: number;
  memorySize?: number;
  environment?: Record<string, unknown>;
  events?: Record<string, unknown>[];
};

/** serverless.yml after variable resolution; CloudFormation intrinsics are still objects. */
export type ServerlessConfig = {
  service: string;
  provider: {
    stage: string;
    region: string;
    timeout?: number;
    memorySize?: number;
    environment?: Record<string, unknown>;
    [key: string]: unknown;
  };
  functions: Record<string, ServerlessFunctionConfig>;
  resources: {
    Resources: Record<string, CfnResource>;
    Conditions?: Record<string, unknown>;
    Mappings?: Record<string, unknown>;
  };
  [key: string]: unknown;
};

export type LoadedServerless = {
  /** Absolute path of the serverless.yml read. */
  file: string;
  /** Directory handler paths are relative to. */
  serviceDir: string;
  config: ServerlessConfig;
};

/** The project's own serverless.yml. */
export const PROJECT_SERVERLESS_FILE = fileURLToPath(new URL('../../serverless.yml', import.meta.url));

/** Serverless's defaults when neither the function nor the provider says. */
const DEFAULT_TIMEOUT_SECONDS = 6;
const DEFAULT_MEMORY_MB = 1024;

/** CloudFormation short forms and the long form each stands for. */
const INTRINSIC_TAGS: Record<string, string> = {
  Ref: 'Ref',
  Condition: 'Condition',
  GetAtt: 'Fn::GetAtt',
  Sub: 'Fn::Sub',
  Join: 'Fn::Join',
  If: 'Fn::If',
  Equals: 'Fn::Equals',
  Not: 'Fn::Not',
  And: 'Fn::And',
  Or: 'Fn::Or',
  Select: 'Fn::Select',
  Split: 'Fn::Split',
  FindInMap: 'Fn::FindInMap',
  Base64: 'Fn::Base64',
  GetAZs: 'Fn::GetAZs',
  ImportValue: 'Fn::ImportValue',
  Cidr: 'Fn::Cidr',
  Transform: 'Fn::Transform',
};

const cloudFormationTags: (ScalarTag | CollectionTag)[] = Object.entries(INTRINSIC_TAGS).flatMap(([short, long]) => {
  const scalar: ScalarTag = {
    tag: `!${short}`,
    resolve: (text) => ({ [long]: short === 'GetAtt' ? splitGetAtt(text) : text }),
  };
  const collection = (kind: 'seq' | 'map'): CollectionTag => ({
    tag: `!${short}`,
    collection: kind,
    resolve: (node) => ({ [long]: node.toJSON() }),
  });
  return [scalar, collection('seq'), collection('map')];
});

/** `!GetAtt Queue.Arn` is `Fn::GetAtt: [Queue, Arn]`; only the first dot separates. */
function splitGetAtt(text: string): string[] {
  const dot = text.indexOf('.');
  return dot < 0 ? [text] : [text.slice(0, dot), text.slice(dot + 1)];
}

/**
 * Parses serverless.yml text, turning CloudFormation tags (`!Ref`, `!GetAtt`,
 * `!Sub`…) into their object form, as the Serverless Framework does.
 */
export function parseServerlessYaml(text: string): Record<string, unknown> {
  const doc: unknown = parse(text, { customTags: cloudFormationTags, merge: true });
  if (!isRecord(doc)) throw new LocalSetupError('serverless.yml does not hold a mapping');
  return doc;
}

export type VariableResolver = {
  /** The stage in effect (`--stage`, provider.stage, `dev`). */
  stage(): string;
  /** The region in effect (`--region`, provider.region, `us-east-1`). */
  region(): string;
  /** Resolves every `${…}` in a value; `at` names its place for error messages. */
  resolve(value: unknown, at?: string): unknown;
  /** Resolves the value at a dotted path of the raw config, e.g. `provider.environment.TOKENS_TABLE`. */
  resolvePath(dotted: string): unknown;
};

type Part = { kind: 'text'; text: string } | { kind: 'var'; inner: string };
type Lookup = { found: true; value: unknown } | { found: false };

/** `source:` or `source(args):` at the start of `${…}`; `${AWS::Region}` or `${Name}` are CloudFormation's. */
const SERVERLESS_VARIABLE = /^\s*[A-Za-z][\w-]*(?:\([^)]*\))?:(?!:)/;

/**
 * Resolves Serverless Framework variables in a raw serverless.yml:
 * `${self:…}`, `${sls:stage}`, `${opt:stage|region}`, `${aws:accountId|region}`,
 * `${param:…}`, `${env:…}`, with fallbacks (`${env:X, 'default'}`, nested
 * variables) and variables inside addresses. Any other source (`file`, `ssm`,
 * `cf`, `s3`…) fails loudly, as does a variable with no value and no fallback.
 * Values are resolved on demand, so a part that is never read never fails.
 */
export function createVariableResolver(raw: Record<string, unknown>, opts: ServerlessOptions = {}): VariableResolver {
  const env = opts.env ?? process.env;
  const inProgress = new Set<string>();
  let stage: string | undefined;
  let region: string | undefined;
  let instanceId: string | undefined;

  const guarded = <T>(key: string, work: () => T): T => {
    if (inProgress.has(key)) throw new LocalSetupError(`serverless.yml: circular reference through ${key}`);
    inProgress.add(key);
    try {
      return work();
    } finally {
      inProgress.delete(key);
    }
  };

  const currentStage = (): string => {
    stage ??= guarded('sls:stage', () => {
      if (opts.stage) return opts.stage;
      const configured = resolveDeep(getPath(raw, ['provider', 'stage']), 'provider.stage');
      return configured == null ? 'dev' : String(configured);
    });
    return stage;
  };

  const currentRegion = (): string => {
    region ??= guarded('aws:region', () => {
      if (opts.region) return opts.region;
      const configured = resolveDeep(getPath(raw, ['provider', 'region']), 'provider.region');
      return configured == null ? 'us-east-1' : String(configured);
    });
    return region;
  };

  const lookup = (source: string, address: string, at: string): unknown => {
    switch (source) {
      case 'self': {
        const segments = address === '' ? [] : address.split('.');
        const value = getPath(raw, segments);
        return value === undefined ? undefined : guarded(`self:${address}`, () => resolveDeep(value, address || '(root)'));
      }
      case 'opt':
        if (address === 'stage') return opts.stage;
        if (address === 'region') return opts.region;
        return undefined;
      case 'sls':
        if (address === 'stage') return currentStage();
        if (address === 'instanceId') return (instanceId ??= randomBytes(4).toString('hex'));
        break;
      case 'aws':
        if (address === 'region') return currentRegion();
        if (address === 'accountId') {
          if (opts.accountId) return opts.accountId;
          throw new LocalSetupError(`serverless.yml at ${at}: \${aws:accountId} needs an AWS account id, none was given`);
        }
        break;
      case 'env':
        return env[address];
      case 'param': {
        if (opts.params?.[address] !== undefined) return opts.params[address];
        const params = getPath(raw, ['params']);
        const value = getPath(params, [currentStage(), address]) ?? getPath(params, ['default', address]);
        return value === undefined ? undefined : guarded(`param:${address}`, () => resolveDeep(value, `params.${address}`));
      }
    }
    throw new LocalSetupError(`serverless.yml at ${at}: unsupported variable \${${source}:${address}}`);
  };

  const lookupVariable = (inner: string, at: string): Lookup => {
    const [first = '', ...fallbacks] = splitTopLevel(inner, ',');
    const address = resolveString(first.trim(), at);
    if (typeof address !== 'string') throw new LocalSetupError(`serverless.yml at ${at}: variable \${${inner}} has a non-text address`);
    const colon = address.indexOf(':');
    const value = lookup(address.slice(0, colon).trim(), address.slice(colon + 1).trim(), at);
    if (value !== undefined && value !== null) return { found: true, value };
    for (const fallback of fallbacks) {
      const found = fallbackValue(fallback.trim(), at);
      if (found.found) return found;
    }
    return { found: false };
  };

  const fallbackValue = (text: string, at: string): Lookup => {
    const parts = splitVariables(text);
    if (parts.length === 1 && parts[0]?.kind === 'var') return lookupVariable(parts[0].inner, at);
    const quoted = /^'(.*)'$/s.exec(text) ?? /^"(.*)"$/s.exec(text);
    if (quoted) return { found: true, value: quoted[1] };
    if (/^-?\d+(\.\d+)?$/.test(text)) return { found: true, value: Number(text) };
    if (text === 'true' || text === 'false') return { found: true, value: text === 'true' };
    throw new LocalSetupError(`serverless.yml at ${at}: fallback ${text} must be quoted, a number, a boolean or a variable`);
  };

  const resolveString = (text: string, at: string): unknown => {
    const parts = splitVariables(text);
    if (parts.length === 1 && parts[0]?.kind === 'var') return requireVariable(parts[0].inner, at);
    return parts
      .map((part) => {
        if (part.kind === 'text') return part.text;
        const value = requireVariable(part.inner, at);
        if (typeof value === 'object') {
          throw new LocalSetupError(`serverless.yml at ${at}: \${${part.inner}} is an object and cannot be part of a string`);
        }
        return String(value);
      })
      .join('');
  };

  const requireVariable = (inner: string, at: string): unknown => {
    const found = lookupVariable(inner, at);
    if (!found.found) throw new LocalSetupError(`serverless.yml at ${at}: \${${inner}} has no value and no fallback`);
    return found.value;
  };

  const resolveDeep = (value: unknown, at: string): unknown => {
    if (typeof value === 'string') return resolveString(value, at);
    if (Array.isArray(value)) return value.map((item, index) => resolveDeep(item, `${at}.${index}`));
    if (isRecord(value)) {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveDeep(item, `${at}.${key}`)]));
    }
    return value;
  };

  return {
    stage: currentStage,
    region: currentRegion,
    resolve: (value, at = '(value)') => resolveDeep(value, at),
    resolvePath: (dotted) => resolveDeep(getPath(raw, dotted.split('.')), dotted),
  };
}

/** Splits text into literal runs and Serverless variables; CloudFormation `${…}` stay literal. */
function splitVariables(text: string): Part[] {
  const parts: Part[] = [];
  let literal = '';
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('${', i)) {
      const end = closingBrace(text, i + 2);
      const inner = end < 0 ? undefined : text.slice(i + 2, end);
      if (inner !== undefined && SERVERLESS_VARIABLE.test(inner)) {
        if (literal) parts.push({ kind: 'text', text: literal });
        literal = '';
        parts.push({ kind: 'var', inner });
        i = end + 1;
        continue;
      }
      // Not ours (or unbalanced): keep `${` and look for variables inside.
      literal += '${';
      i += 2;
      continue;
    }
    literal += text[i];
    i += 1;
  }
  if (literal) parts.push({ kind: 'text', text: literal });
  return parts;
}

/** Index of the `}` closing a `${` whose content starts at `from`, or -1. */
function closingBrace(text: string, from: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = from; i < text.length; i += 1) {
    const char = text[i];
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (text.startsWith('${', i)) {
      depth += 1;
      i += 1;
    } else if (char === '}') {
      if (depth === 0) return i;
      depth -= 1;
    }
  }
  return -1;
}

/** Splits on `separator` outside quotes and nested `${…}`. */
function splitTopLevel(text: string, separator: string): string[] {
  const pieces: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (text.startsWith('${', i)) {
      depth += 1;
      i += 1;
    } else if (char === '}') {
      depth -= 1;
    } else if (char === separator && depth === 0) {
      pieces.push(text.slice(start, i));
      start = i + 1;
    }
  }
  pieces.push(text.slice(start));
  return pieces;
}

function getPath(value: unknown, segments: string[]): unknown {
  let current = value;
  for (const segment of segments) {
    if (Array.isArray(current) && /^\d+$/.test(segment)) current = current[Number(segment)];
    else if (isRecord(current)) current = current[segment];
    else return undefined;
  }
  return current;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads serverless.yml and resolves all its variables for one stage and
 * region, as `serverless package` would before handing the result to
 * CloudFormation.
 */
export async function loadServerlessConfig(file: string, opts: ServerlessOptions = {}): Promise<LoadedServerless> {
  const absolute = path.resolve(file);
  const raw = parseServerlessYaml(await readFile(absolute, 'utf8'));
  const resolver = createVariableResolver(raw, opts);
  const resolved = resolver.resolve(raw, '(root)');
  if (!isRecord(resolved) || typeof resolved.service !== 'string') {
    throw new LocalSetupError(`${absolute}: "service" must be a string`);
  }
  const provider = isRecord(resolved.provider) ? resolved.provider : {};
  const resources = isRecord(resolved.resources) ? resolved.resources : {};
  const config: ServerlessConfig = {
    ...resolved,
    service: resolved.service,
    provider: { ...provider, stage: resolver.stage(), region: resolver.region() },
    functions: validFunctions(resolved.functions, absolute),
    resources: {
      ...resources,
      Resources: isRecord(resources.Resources) ? (resources.Resources as Record<string, CfnResource>) : {},
    },
  };
  return { file: absolute, serviceDir: path.dirname(absolute), config };
}

function validFunctions(value: unknown, file: string): Record<string, ServerlessFunctionConfig> {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw new LocalSetupError(`${file}: "functions" must be a mapping`);
  for (const [key, fn] of Object.entries(value)) {
    if (!isRecord(fn) || typeof fn.handler !== 'string') {
      throw new LocalSetupError(`${file}: functions.${key}.handler must be a string like "functions/pdf.handler"`);
    }
  }
  return value as Record<string, ServerlessFunctionConfig>;
}

/** One route of an `httpApi` event; `method` is upper case or `ANY`, `$default` has no path. */
export type HttpRoute = { routeKey: string; method: string; path: string };

export type SqsEventSource = {
  /** The queue ARN as written: a string or an intrinsic such as `!GetAtt JobsQueue.Arn`. */
  arn: unknown;
  batchSize: number;
  reportBatchItemFailures: boolean;
  maximumConcurrency: number | undefined;
  enabled: boolean;
};

export type ScheduleSource = { expression: string; input: unknown; enabled: boolean };

/** A function as the local runtime sees it, with Serverless's defaults applied. */
export type LocalFunction = {
  /** Its key under `functions:`. */
  key: string;
  /** The deployed name, `<service>-<stage>-<key>` unless `name:` is set. */
  name: string;
  handler: string;
  timeoutSeconds: number;
  memoryMb: number;
  httpRoutes: HttpRoute[];
  sqsEvents: SqsEventSource[];
  schedules: ScheduleSource[];
};

/** Lists the functions of a loaded serverless.yml with their events normalised. */
export function listFunctions(loaded: LoadedServerless): LocalFunction[] {
  const { config } = loaded;
  return Object.entries(config.functions).map(([key, fn]) => ({
    key,
    name: fn.name ?? `${config.service}-${config.provider.stage}-${key}`,
    handler: fn.handler,
    timeoutSeconds: Number(fn.timeout ?? config.provider.timeout ?? DEFAULT_TIMEOUT_SECONDS),
    memoryMb: Number(fn.memorySize ?? config.provider.memorySize ?? DEFAULT_MEMORY_MB),
    httpRoutes: (fn.events ?? []).flatMap((event) => ('httpApi' in event ? [httpRoute(event.httpApi, key)] : [])),
    sqsEvents: (fn.events ?? []).flatMap((event) => ('sqs' in event ? [sqsSource(event.sqs, key)] : [])),
    schedules: (fn.events ?? []).flatMap((event) => ('schedule' in event ? scheduleSources(event.schedule, key) : [])),
  }));
}

function httpRoute(event: unknown, key: string): HttpRoute {
  let method: string | undefined;
  let routePath: string | undefined;
  if (event === '*') return { routeKey: '$default', method: 'ANY', path: '' };
  if (typeof event === 'string') [method, routePath] = event.trim().split(/\s+/);
  else if (isRecord(event)) [method, routePath] = [String(event.method ?? ''), String(event.path ?? '')];
  if (!method || !routePath || !routePath.startsWith('/')) {
    throw new LocalSetupError(`functions.${key}: httpApi event must be '*', 'METHOD /path' or { method, path }`);
  }
  const upper = method === '*' ? 'ANY' : method.toUpperCase();
  return { routeKey: `${upper} ${routePath}`, method: upper, path: routePath };
}

function sqsSource(event: unknown, key: string): SqsEventSource {
  if (typeof event === 'string') {
    return { arn: event, batchSize: 10, reportBatchItemFailures: false, maximumConcurrency: undefined, enabled: true };
  }
  if (!isRecord(event) || event.arn === undefined) throw new LocalSetupError(`functions.${key}: sqs event needs an arn`);
  return {
    arn: event.arn,
    batchSize: Number(event.batchSize ?? 10),
    reportBatchItemFailures: event.functionResponseType === 'ReportBatchItemFailures',
    maximumConcurrency: event.maximumConcurrency === undefined ? undefined : Number(event.maximumConcurrency),
    enabled: event.enabled !== false,
  };
}

function scheduleSources(event: unknown, key: string): ScheduleSource[] {
  if (typeof event === 'string') return [{ expression: event, input: undefined, enabled: true }];
  if (!isRecord(event)) throw new LocalSetupError(`functions.${key}: schedule event must be a string or a mapping`);
  const rates = Array.isArray(event.rate) ? event.rate : [event.rate];
  return rates.map((rate) => ({ expression: String(rate), input: event.input, enabled: event.enabled !== false }));
}
