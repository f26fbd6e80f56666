import { createHash } from 'node:crypto';
import Handlebars from 'handlebars';
import { ValidationError } from '../errors.js';
import { registerDocumentHelpers, TemplateHelperError } from './handlebars-helpers.js';

/**
 * Handlebars for caller templates.
 *
 * One environment for the whole process, built once: the built-in helpers
 * (`if`, `unless`, `each`, `with`, `lookup`, plus the two "missing"
 * fallbacks) and the document helpers of `handlebars-helpers.ts`, no partials, no decorators (not even
 * `inline`, which would let a template define partials), and its registries frozen so that
 * nothing can be registered later. Callers can never add helpers or
 * partials, so there is nothing for one render to leak into the next, and a
 * shared environment lets compiled templates be cached (a compiled template
 * is bound to the environment that compiled it; a fresh environment per
 * render would mean compiling on every render).
 */

const FIELD = 'page.htmlTemplate';
const DATA_FIELD = 'page.templateData';

/** Largest rendered HTML, in bytes. */
export const MAX_OUTPUT_BYTES = 5 * 1024 * 1024;
/** Most `#each` iterations one render may run (nested loops multiply). */
export const MAX_ITERATIONS = 1_000_000;
/** Deepest nesting of `templateData` accepted. */
export const MAX_DATA_DEPTH = 100;
/**
 * Most expressions (tags, path segments, arguments) a template may have. Handlebars' compiler takes about
 * 20 KB of memory for each: 40 000 took 2 GB, and 1 MB of `{{a}}` ran the process out of memory. Ten
 * thousand is several times what a long document template uses (repeat with `#each`, not by hand).
 */
export const MAX_TEMPLATE_EXPRESSIONS = 10_000;

const CACHE_ENTRIES = 100;
/** Total template text the compile cache keeps alive. */
const CACHE_TEMPLATE_CHARS = 16 * 1024 * 1024;

const COMPILE_OPTIONS = {
  strict: false,
  noEscape: false,
  assumeObjects: false,
  preventIndent: false,
  // `log` is removed from the environment; without this the compiler would still call it directly.
  knownHelpers: { log: false },
};
// The 4.6+ defaults, spelled out: prototype properties and methods are never resolved.
const RUNTIME_OPTIONS = { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false } as const;

/** Thrown from inside a render when it outgrows its limits; becomes a ValidationError. */
class TemplateLimitError extends Error {}

type Budget = { iterations: number; built: number; lastHelperResult?: unknown };
// Renders are synchronous, so the budget of the one render in progress can live here.
let activeBudget: Budget | null = null;

type HelperOptions = Handlebars.HelperOptions;
type Program = (context: unknown, options?: unknown) => string;

/** One more unit of loop work for the render in progress; stops a template that explodes. */
function countIteration(): void {
  const budget = activeBudget;
  if (!budget) return;
  budget.iterations += 1;
  if (budget.iterations > MAX_ITERATIONS) {
    throw new TemplateLimitError(`Template runs more than ${MAX_ITERATIONS} loop iterations`);
  }
}

/**
 * Counts escaped output against the render's output bound while it is built. Each `{{v}}` escapes anew
 * (1 MB of "<" is 4 MB each time), and the size check after the render came only once V8 could build no
 * longer a string: 520 MB, 2 GB of memory, 10 s. Handlebars' runtime reads this one function from its
 * `Utils` whenever a template is first run, so it is replaced there, once, before anything compiles.
 */
function boundEscaping(): void {
  const utils = Handlebars.Utils as { escapeExpression: (value: unknown) => string };
  const escape = utils.escapeExpression;
  utils.escapeExpression = function boundedEscape(value: unknown): string {
    const out = escape(value);
    // A list is counted when it turns into text (listText), a helper's result when the helper returns it
    // (printed at once, `{{uppercase v}}`, it is not counted twice; escaping may only lengthen it, by 5x).
    const budget = activeBudget;
    const helperResult = budget !== null && budget.lastHelperResult !== undefined && value === budget.lastHelperResult;
    if (budget) budget.lastHelperResult = undefined;
    if (helperResult && typeof out === 'string' && typeof value === 'string' && out.length > value.length) countBuilt(out.length - value.length);
    else if (!helperResult && !Array.isArray(value) && !(value instanceof Handlebars.SafeString) && typeof out === 'string') countBuilt(out.length);
    return out;
  };
}

/** A helper's result: counted as it is returned, and remembered so that printing it at once does not count it again. */
function countHelperResult(chars: number, result: unknown): void {
  countBuilt(chars);
  if (activeBudget) activeBudget.lastHelperResult = result;
}

/** Text built for the render in progress, printed or about to be: past the output bound, the render stops. */
function countBuilt(chars: number): void {
  const budget = activeBudget;
  if (!budget) return;
  budget.built += chars;
  if (budget.built > MAX_OUTPUT_BYTES) {
    throw new TemplateLimitError(`Rendered HTML is larger than ${MAX_OUTPUT_BYTES / (1024 * 1024)} MB`);
  }
}

/**
 * How a list of the caller's data becomes text (`{{{list}}}`, `{{list}}`): as JavaScript does it, but
 * counted, since every use builds the text anew. A symbol key, so no template path can reach it.
 */
function listText(this: unknown[]): string {
  const text = Array.prototype.join.call(this, ',');
  countBuilt(text.length);
  return text;
}

function createEnvironment(): typeof Handlebars {
  const env = Handlebars.create();
  const builtinEach = env.helpers.each as (this: unknown, context: unknown, options: HelperOptions) => string;

  // `#each` is the only construct that multiplies work: count its iterations
  // and the size of what each loop builds, and stop a template that explodes.
  env.registerHelper('each', function boundedEach(this: unknown, context: unknown, options: HelperOptions) {
    const budget = activeBudget;
    if (!budget || !options || typeof options.fn !== 'function') return builtinEach.call(this, context, options);
    const body = options.fn as Program;
    let produced = 0;
    const counted = Object.assign(function (this: unknown, value: unknown, frame?: unknown) {
      countIteration();
      const out = body.call(this, value, frame);
      produced += out.length;
      if (produced > MAX_OUTPUT_BYTES) {
        throw new TemplateLimitError(`Rendered HTML is larger than ${MAX_OUTPUT_BYTES / (1024 * 1024)} MB`);
      }
      return out;
    }, body);
    return builtinEach.call(this, context, { ...options, fn: counted as unknown as HelperOptions['fn'] });
  });
  registerDocumentHelpers(env, countIteration, countHelperResult);
  // `{{log}}` would write caller content into our logs.
  env.unregisterHelper('log');
  // `{{#*inline}}` is the one way a caller defines a partial: nested ones multiply output ten times a level
  // with no `#each`, so no budget sees them (900 bytes held the event loop 47 s and took 2 GB).
  env.unregisterDecorator('inline');

  Object.freeze(env.helpers);
  Object.freeze(env.partials);
  Object.freeze(env.decorators);
  return env;
}

boundEscaping();
const env = createEnvironment();
// Denied prototype lookups are otherwise reported on the console with the
// caller's property names; the denial itself is what matters. The logger is
// Handlebars' own module-level one (level above `error` = silent).
(Handlebars.logger as { level: number | string }).level = 4;

type CacheEntry = { template: HandlebarsTemplateDelegate; chars: number };
const cache = new Map<string, CacheEntry>();
let cachedChars = 0;
const stats = { hits: 0, misses: 0 };

function cacheKey(templateBase64: string): string {
  return createHash('sha256').update(templateBase64).digest('base64url');
}

function remember(key: string, entry: CacheEntry): void {
  if (entry.chars > CACHE_TEMPLATE_CHARS / 4) return;
  cache.set(key, entry);
  cachedChars += entry.chars;
  // Map iteration order is insertion order: the first key is the least recently used.
  for (const [oldKey, old] of cache) {
    if (cache.size <= CACHE_ENTRIES && cachedChars <= CACHE_TEMPLATE_CHARS) break;
    cache.delete(oldKey);
    cachedChars -= old.chars;
  }
}

function recall(key: string): CacheEntry | undefined {
  const entry = cache.get(key);
  if (entry) {
    cache.delete(key);
    cache.set(key, entry);
  }
  return entry;
}

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * A plain copy of the caller's data without the keys that name prototype
 * machinery, so that no template can reach them even as own properties and
 * nothing downstream can turn them into prototype pollution.
 */
function cleanData(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'function' || typeof value === 'symbol' ? undefined : value;
  }
  if (depth >= MAX_DATA_DEPTH) {
    throw new ValidationError({ [DATA_FIELD]: `Must not be nested deeper than ${MAX_DATA_DEPTH} levels` });
  }
  if (Array.isArray(value)) {
    const list = value.map((item) => cleanData(item, depth + 1));
    Object.defineProperty(list, Symbol.toPrimitive, { value: listText, enumerable: false });
    return list;
  }
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (UNSAFE_KEYS.has(key)) continue;
    copy[key] = cleanData((value as Record<string, unknown>)[key], depth + 1);
  }
  return copy;
}

// Inside a tag, what separates one expression from the next: blanks, path separators, parentheses, `=`, `|`.
const SEPARATOR = /[\s./()=|]/;

/**
 * An upper bound on the expressions of a template, counted on its text so that a template too big to compile
 * is refused before Handlebars parses it (parsing 3.7 MB of tags alone took 8 s). Comments do not count.
 * Stops counting past `limit`.
 */
function countExpressions(source: string, limit: number): number {
  let count = 0;
  let at = source.indexOf('{{');
  while (at !== -1 && count <= limit) {
    const comment = source.startsWith('{{!', at);
    const closing = comment && source.startsWith('{{!--', at) ? '--}}' : '}}';
    const end = source.indexOf(closing, at + 2);
    if (end === -1) return count + 1;
    if (!comment) {
      count += 1;
      let inSeparator = false;
      for (let i = at + 2; i < end; i += 1) {
        const separator = SEPARATOR.test(source[i] ?? '');
        if (separator && !inSeparator) count += 1;
        inSeparator = separator;
      }
    }
    at = source.indexOf('{{', end + closing.length);
  }
  return count;
}

function describeFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // Parse errors carry a multi-line excerpt with a caret; keep it short.
  const compact = message.replace(/\s*\n\s*/g, ' ').trim();
  const text = compact.length > 300 ? `${compact.slice(0, 297)}...` : compact;
  return `Template could not be rendered: ${text}`;
}

/** Renders a base64 Handlebars template with caller data into HTML. Throws ValidationError({'page.htmlTemplate': reason}) on a template that does not compile/render. */
export function renderHandlebars(templateBase64: string, data: unknown): string {
  const key = cacheKey(templateBase64);
  const cached = recall(key);
  if (cached) stats.hits += 1;
  else stats.misses += 1;
  const source = cached ? undefined : Buffer.from(templateBase64, 'base64').toString('utf8');
  if (source !== undefined && countExpressions(source, MAX_TEMPLATE_EXPRESSIONS) > MAX_TEMPLATE_EXPRESSIONS) {
    throw new ValidationError({ [FIELD]: `Template has more than ${MAX_TEMPLATE_EXPRESSIONS} expressions (tags, path segments and arguments); repeat with #each` });
  }
  const template = cached?.template ?? env.compile(source ?? '', COMPILE_OPTIONS);
  const context = cleanData(data ?? {});

  let html: string;
  activeBudget = { iterations: 0, built: 0 };
  try {
    // Compilation is lazy: syntax errors surface on this first call too.
    html = template(context, RUNTIME_OPTIONS);
  } catch (error) {
    if (error instanceof TemplateLimitError || error instanceof TemplateHelperError) {
      throw new ValidationError({ [FIELD]: error.message }, { cause: error });
    }
    if (error instanceof RangeError) {
      // Stack or string-length exhaustion: the template is too big or too deep to render.
      throw new ValidationError({ [FIELD]: 'Template is too large or too deeply nested to render' }, { cause: error });
    }
    throw new ValidationError({ [FIELD]: describeFailure(error) }, { cause: error });
  } finally {
    activeBudget = null;
  }

  if (html.length > MAX_OUTPUT_BYTES || Buffer.byteLength(html, 'utf8') > MAX_OUTPUT_BYTES) {
    throw new ValidationError({ [FIELD]: `Rendered HTML is larger than ${MAX_OUTPUT_BYTES / (1024 * 1024)} MB` });
  }
  if (!cached && source !== undefined) remember(key, { template, chars: source.length });
  return html;
}

/** Compile-cache counters since the process started (diagnostics and tests). */
export function handlebarsCacheStats(): { entries: number; hits: number; misses: number } {
  return { entries: cache.size, ...stats };
}
