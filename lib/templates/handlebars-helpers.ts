import Handlebars from 'handlebars';
import { isPlainObject } from '../validation/is-plain-object.js';

/**
 * Helpers for documents (invoices, reports, labels), registered beside the
 * built-ins in the one frozen Handlebars environment.
 *
 * Each helper checks its arguments and throws `TemplateHelperError` naming
 * itself and the reason, which the caller sees as a 400 on
 * `page.htmlTemplate`. None reads anything but own properties of plain data,
 * so no helper reaches a prototype, and those that walk an array count each
 * element against the render's iteration budget.
 */

/** A helper used wrongly (arguments, locale, currency…); becomes a 400 on `page.htmlTemplate`. */
export class TemplateHelperError extends Error {
  constructor(helper: string, reason: string) {
    super(`Helper "${helper}": ${reason}`);
    this.name = 'TemplateHelperError';
  }
}

/** Counts work against the render's bounds: called once per array element a helper walks. */
export type CountIteration = () => void;

type Hash = Record<string, unknown>;
type Helper = (args: unknown[], hash: Hash) => unknown;

const DEFAULT_LOCALE = 'en-US';
/** Dates are formatted in UTC unless a `timeZone` is given: the same template prints the same date anywhere. */
const DEFAULT_TIME_ZONE = 'UTC';
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const FORMATTER_CACHE_ENTRIES = 200;
/** Most text one helper call may build: the render's whole output limit (handlebars.ts), so no call outgrows it. */
const MAX_HELPER_TEXT = 5 * 1024 * 1024;

const formatters = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();
let currencies: Set<string> | undefined;

/** Formatters are costly to build and a table formats the same way on every row. */
function cachedFormatter<T extends Intl.NumberFormat | Intl.DateTimeFormat>(key: string, build: () => T): T {
  const found = formatters.get(key);
  if (found) return found as T;
  const made = build();
  if (formatters.size >= FORMATTER_CACHE_ENTRIES) formatters.clear();
  formatters.set(key, made);
  return made;
}

function toNumber(helper: string, value: unknown, what = 'value'): number {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number)) {
    throw new TemplateHelperError(helper, `${what} must be a number, got ${describe(value)}`);
  }
  return number;
}

function toArray(helper: string, value: unknown): unknown[] {
  if (!Array.isArray(value)) throw new TemplateHelperError(helper, `expects a list, got ${describe(value)}`);
  return value;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 37)}...` : value}"`;
  return typeof value === 'object' ? 'an object' : String(value);
}

function locale(helper: string, hash: Hash): string {
  const requested = hash.locale ?? DEFAULT_LOCALE;
  if (typeof requested !== 'string') throw new TemplateHelperError(helper, 'locale must be a string');
  let supported: string[];
  try {
    supported = Intl.NumberFormat.supportedLocalesOf([requested]);
  } catch {
    throw new TemplateHelperError(helper, `unknown locale "${requested}"`);
  }
  if (supported.length === 0) throw new TemplateHelperError(helper, `unknown locale "${requested}"`);
  return requested;
}

/** The hash's Intl options: everything but `locale`, own keys only, values as given. */
function intlOptions(hash: Hash): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const key of Object.keys(hash)) if (key !== 'locale' && !UNSAFE_KEYS.has(key)) options[key] = hash[key];
  return options;
}

function numberFormat(helper: string, hash: Hash, extra: Record<string, unknown>): Intl.NumberFormat {
  const tag = locale(helper, hash);
  const options = { ...intlOptions(hash), ...extra };
  return cachedFormatter(`n|${tag}|${JSON.stringify(options)}`, () => {
    try {
      return new Intl.NumberFormat(tag, options as Intl.NumberFormatOptions);
    } catch (error) {
      throw new TemplateHelperError(helper, (error as Error).message);
    }
  });
}

function currencyCode(helper: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') throw new TemplateHelperError(helper, 'needs a currency code, e.g. "EUR"');
  const code = value.toUpperCase();
  currencies ??= new Set(Intl.supportedValuesOf('currency'));
  if (!currencies.has(code)) throw new TemplateHelperError(helper, `unknown currency "${value}"`);
  return code;
}

function toDate(helper: string, value: unknown): Date {
  const date =
    value instanceof Date ? value
    : typeof value === 'number' ? new Date(value)
    : typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? new Date(Number(value))
    : typeof value === 'string' ? new Date(value)
    : undefined;
  if (!date || Number.isNaN(date.getTime())) {
    throw new TemplateHelperError(helper, `needs an ISO 8601 date or epoch milliseconds, got ${describe(value)}`);
  }
  return date;
}

function text(helper: string, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new TemplateHelperError(helper, `expects text, got ${describe(value)}`);
}

/** Makes JSON safe inside a `<script>`: no `</script>`, `<!--`, or line separators that end a JS string. */
function scriptSafeJson(value: unknown): string {
  return (JSON.stringify(value ?? null) ?? 'null')
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** A value as `#if` sees it: Handlebars treats an empty list as false. */
const truthy = (value: unknown) => (Array.isArray(value) ? value.length > 0 : Boolean(value));

type Definition = { min: number; max: number; run: Helper };

function definitions(count: CountIteration): Record<string, Definition> {
  const compare = (name: string, test: (a: number | string, b: number | string) => boolean): Definition => ({
    min: 2,
    max: 2,
    run: ([a, b]) => {
      // Numbers compare as numbers (a numeric string from JSON included), anything else as text.
      const numeric = [a, b].every((v) => typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))));
      if (numeric) return test(Number(a), Number(b));
      if (a instanceof Object || b instanceof Object) throw new TemplateHelperError(name, 'compares numbers or text, not lists or objects');
      return test(String(a ?? ''), String(b ?? ''));
    },
  });
  const arithmetic = (name: string, op: (a: number, b: number) => number): Definition => ({
    min: 2,
    max: 2,
    run: ([a, b]) => op(toNumber(name, a, 'first value'), toNumber(name, b, 'second value')),
  });
  return {
    formatNumber: {
      min: 1,
      max: 1,
      run: ([value], hash) => numberFormat('formatNumber', hash, {}).format(toNumber('formatNumber', value)),
    },
    formatCurrency: {
      min: 1,
      max: 2,
      run: ([value, code], hash) => {
        const currency = currencyCode('formatCurrency', code ?? hash.currency);
        return numberFormat('formatCurrency', hash, { style: 'currency', currency }).format(toNumber('formatCurrency', value));
      },
    },
    formatPercent: {
      min: 1,
      max: 1,
      run: ([value], hash) => numberFormat('formatPercent', hash, { style: 'percent' }).format(toNumber('formatPercent', value)),
    },
    formatDate: {
      min: 1,
      max: 1,
      run: ([value], hash) => {
        const date = toDate('formatDate', value);
        const tag = locale('formatDate', hash);
        const options = { timeZone: DEFAULT_TIME_ZONE, ...intlOptions(hash) };
        const format = cachedFormatter(`d|${tag}|${JSON.stringify(options)}`, () => {
          try {
            return new Intl.DateTimeFormat(tag, options as Intl.DateTimeFormatOptions);
          } catch (error) {
            throw new TemplateHelperError('formatDate', (error as Error).message);
          }
        });
        return format.format(date);
      },
    },
    eq: compare('eq', (a, b) => a === b),
    ne: compare('ne', (a, b) => a !== b),
    lt: compare('lt', (a, b) => a < b),
    lte: compare('lte', (a, b) => a <= b),
    gt: compare('gt', (a, b) => a > b),
    gte: compare('gte', (a, b) => a >= b),
    and: { min: 2, max: 20, run: (args) => args.every(truthy) },
    or: { min: 2, max: 20, run: (args) => args.some(truthy) },
    not: { min: 1, max: 1, run: ([value]) => !truthy(value) },
    add: arithmetic('add', (a, b) => a + b),
    subtract: arithmetic('subtract', (a, b) => a - b),
    multiply: arithmetic('multiply', (a, b) => a * b),
    divide: arithmetic('divide', (a, b) => {
      if (b === 0) throw new TemplateHelperError('divide', 'division by zero');
      return a / b;
    }),
    round: {
      min: 1,
      max: 2,
      run: ([value, digits]) => {
        const places = digits === undefined ? 0 : toNumber('round', digits, 'digits');
        if (!Number.isInteger(places) || places < 0 || places > 20) throw new TemplateHelperError('round', 'digits must be a whole number from 0 to 20');
        const factor = 10 ** places;
        // Math.round on the scaled value, nudged by EPSILON so 1.005 rounds up as people expect.
        return Math.round((toNumber('round', value) + Number.EPSILON) * factor) / factor;
      },
    },
    sum: {
      min: 1,
      max: 2,
      run: ([list, field]) => {
        const items = toArray('sum', list);
        if (field !== undefined && (typeof field !== 'string' || UNSAFE_KEYS.has(field))) {
          throw new TemplateHelperError('sum', 'field must be the name of a field');
        }
        let total = 0;
        for (const item of items) {
          count();
          const value = field === undefined ? item : isPlainObject(item) && Object.hasOwn(item, field) ? item[field] : undefined;
          if (value === undefined || value === null || value === '') continue;
          total += toNumber('sum', value, field === undefined ? 'each element' : `field "${field}"`);
        }
        return total;
      },
    },
    uppercase: { min: 1, max: 1, run: ([value]) => text('uppercase', value).toUpperCase() },
    lowercase: { min: 1, max: 1, run: ([value]) => text('lowercase', value).toLowerCase() },
    truncate: {
      min: 2,
      max: 2,
      run: ([value, length], hash) => {
        const max = toNumber('truncate', length, 'length');
        if (!Number.isInteger(max) || max < 0) throw new TemplateHelperError('truncate', 'length must be a whole number');
        const suffix = hash.suffix === undefined ? '…' : text('truncate', hash.suffix);
        const chars = Array.from(text('truncate', value));
        return chars.length <= max ? chars.join('') : chars.slice(0, Math.max(0, max - Array.from(suffix).length)).join('') + suffix;
      },
    },
    default: {
      min: 2,
      max: 2,
      run: ([value, fallback]) => (value === undefined || value === null || value === '' ? fallback : value),
    },
    join: {
      min: 1,
      max: 2,
      run: ([list, separator]) => {
        const glue = separator === undefined ? ', ' : text('join', separator);
        const items = toArray('join', list).map((item) => {
          count();
          return text('join', item);
        });
        // Measured before joining: block params let a join's output be the next join's separator, nine
        // times larger a level, and the render's own size check would only see the text once it is built.
        const size = items.reduce((sum, item) => sum + item.length, 0) + glue.length * Math.max(0, items.length - 1);
        if (size > MAX_HELPER_TEXT) throw new TemplateHelperError('join', `Rendered HTML is larger than ${MAX_HELPER_TEXT / (1024 * 1024)} MB once this is joined`);
        return items.join(glue);
      },
    },
    length: {
      min: 1,
      max: 1,
      run: ([value]) => {
        if (typeof value === 'string' || Array.isArray(value)) return value.length;
        if (isPlainObject(value)) return Object.keys(value).length;
        if (value === undefined || value === null) return 0;
        throw new TemplateHelperError('length', `expects a list, text or object, got ${describe(value)}`);
      },
    },
    json: {
      min: 1,
      max: 1,
      run: ([value]) => new Handlebars.SafeString(scriptSafeJson(value)),
    },
  };
}

/** Names of every document helper, for documentation and tests. */
export const DOCUMENT_HELPERS = Object.keys(definitions(() => undefined));

/**
 * Registers the document helpers on `env`. `count` is called for every array
 * element a helper walks, so helpers share the render's iteration bound;
 * `countText` for the length of every text a helper returns, so that results
 * used again and again share its output bound.
 */
export function registerDocumentHelpers(
  env: typeof Handlebars,
  count: CountIteration,
  countText: (chars: number, result: unknown) => void = () => undefined,
): void {
  for (const [name, definition] of Object.entries(definitions(count))) {
    env.registerHelper(name, function documentHelper(this: unknown, ...received: unknown[]) {
      const options = received.pop() as Handlebars.HelperOptions;
      const hash: Hash = isPlainObject(options?.hash) ? options.hash : {};
      // `{{length}}` or `{{total}}` alone may mean a field of the data that shares a helper's name,
      // as it did before helpers existed: give the field when the context has one.
      if (received.length === 0 && Object.keys(hash).length === 0 && isPlainObject(this) && Object.hasOwn(this, name)) {
        return this[name];
      }
      if (received.length < definition.min || received.length > definition.max) {
        const expected = definition.min === definition.max ? `${definition.min}` : `${definition.min} to ${definition.max}`;
        throw new TemplateHelperError(name, `takes ${expected} argument${definition.max === 1 ? '' : 's'}, got ${received.length}`);
      }
      const result = definition.run(received, hash);
      // A helper's result may feed the next helper through block params without being printed, so the
      // render's output check never sees it: bound every result here, or json of json doubles a level.
      const size = typeof result === 'string' ? result.length : result instanceof Handlebars.SafeString ? result.toString().length : 0;
      if (size > MAX_HELPER_TEXT) throw new TemplateHelperError(name, `Rendered HTML is larger than ${MAX_HELPER_TEXT / (1024 * 1024)} MB with this result`);
      // Each call builds its text anew, and `{{{json list}}}` a hundred times over is no escape and no list.
      countText(size, result);
      return result;
    });
  }
}
