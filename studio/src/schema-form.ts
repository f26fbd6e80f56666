/**
 * Option forms generated from the service's own OpenAPI document
 * (`/v1/openapi.json`, itself converted from the valibot schemas that
 * validate requests), so every option, limit, default and description shown
 * here is the one the service enforces, and nothing is written down twice.
 *
 * Each control carries `data-path` (`pdf.margin.top`), the dot path a 400's
 * `fields` uses, so errors land next to the input they name.
 */
import { decodeBase64, encodeBase64 } from './base64.js';

export type JsonSchema = {
  $ref?: string;
  type?: string;
  anyOf?: JsonSchema[];
  enum?: (string | number)[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: unknown;
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  description?: string;
  default?: unknown;
};

type OpenApiDocument = { components: { schemas: Record<string, JsonSchema> } };

/** How a control reads and writes its value. */
type Kind = 'enum' | 'boolean' | 'number' | 'integer' | 'string' | 'number-or-string' | 'base64' | 'json' | 'switch';

/** Follows `$ref`s and drops the `null` branch every optional field has. */
export function unwrap(schema: JsonSchema, doc: OpenApiDocument): JsonSchema {
  let current = schema;
  const outer = { description: schema.description, default: schema.default };
  for (let depth = 0; depth < 10; depth++) {
    if (current.$ref) {
      const name = current.$ref.replace('#/components/schemas/', '');
      current = doc.components.schemas[name] ?? {};
      continue;
    }
    const branches = current.anyOf?.filter((branch) => branch.type !== 'null');
    if (branches && branches.length === 1 && branches[0]) {
      current = { ...branches[0], description: current.description ?? branches[0].description, default: current.default ?? branches[0].default };
      continue;
    }
    break;
  }
  return { ...current, description: current.description ?? outer.description, default: current.default ?? outer.default };
}

function kindOf(schema: JsonSchema): Kind {
  if (schema.enum) return 'enum';
  if (schema.anyOf) {
    const types = schema.anyOf.map((branch) => branch.type);
    if (types.every((type) => type === 'number' || type === 'integer' || type === 'string')) return 'number-or-string';
    return 'json';
  }
  if (schema.type === 'boolean') return 'boolean';
  if (schema.type === 'number') return 'number';
  if (schema.type === 'integer') return 'integer';
  if (schema.type === 'string') return /base64/i.test(schema.description ?? '') ? 'base64' : 'string';
  return 'json';
}

function limits(schema: JsonSchema): string {
  const parts: string[] = [];
  if (schema.minimum !== undefined && schema.maximum !== undefined) parts.push(`${schema.minimum}–${schema.maximum}`);
  else if (schema.maximum !== undefined) parts.push(`at most ${schema.maximum}`);
  else if (schema.minimum !== undefined) parts.push(`at least ${schema.minimum}`);
  if (schema.maxLength !== undefined) parts.push(`at most ${schema.maxLength} characters`);
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  return parts.join(', ');
}

const idFor = (path: string) => `opt-${path.replaceAll('.', '-')}`;

function control(path: string, schema: JsonSchema, kind: Kind): HTMLElement {
  const id = idFor(path);
  let element: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  if (kind === 'enum' || kind === 'boolean' || kind === 'switch') {
    const select = document.createElement('select');
    const values = kind === 'enum' ? (schema.enum ?? []).map(String) : ['true', 'false'];
    const unset = document.createElement('option');
    unset.value = '';
    unset.textContent = kind === 'switch' ? `default (${schema.default === true ? 'on' : 'off'})` : schema.default !== undefined ? `default (${String(schema.default)})` : '—';
    select.append(unset);
    for (const value of values) {
      const option = document.createElement('option');
      option.value = value;
      option.textContent = kind === 'switch' ? (value === 'true' ? 'on' : 'off') : value;
      select.append(option);
    }
    // A list of numbers (pdf.rotate.angle) is sent as numbers.
    if (kind === 'enum' && values.length > 0 && (schema.enum ?? []).every((value) => typeof value === 'number')) select.dataset.numeric = 'true';
    element = select;
  } else if (kind === 'json' || kind === 'base64') {
    const area = document.createElement('textarea');
    area.rows = kind === 'base64' ? 3 : 2;
    area.spellcheck = false;
    area.placeholder = kind === 'base64' ? 'HTML (sent base64-encoded)' : 'JSON';
    element = area;
  } else {
    const input = document.createElement('input');
    input.type = kind === 'number' || kind === 'integer' ? 'number' : 'text';
    if (schema.minimum !== undefined) input.min = String(schema.minimum);
    if (schema.maximum !== undefined) input.max = String(schema.maximum);
    if (kind === 'integer') input.step = '1';
    if (kind === 'number') input.step = 'any';
    if (schema.maxLength !== undefined) input.maxLength = schema.maxLength;
    if (schema.default !== undefined && typeof schema.default !== 'object') input.placeholder = String(schema.default);
    element = input;
  }
  element.id = id;
  element.dataset.path = path;
  element.dataset.kind = kind;
  element.setAttribute('aria-describedby', `${id}-hint ${id}-error`);
  return element;
}

function field(path: string, name: string, schema: JsonSchema, kind: Kind): HTMLElement {
  const wrapper = document.createElement('div');
  wrapper.className = `option option-${kind}`;
  const label = document.createElement('label');
  label.htmlFor = idFor(path);
  label.textContent = name;
  const hint = document.createElement('small');
  hint.id = `${idFor(path)}-hint`;
  hint.textContent = [schema.description, limits(schema)].filter(Boolean).join(' · ');
  const error = document.createElement('span');
  error.id = `${idFor(path)}-error`;
  error.className = 'field-error';
  error.dataset.errorFor = path;
  wrapper.append(label, control(path, schema, kind), hint, error);
  return wrapper;
}

/**
 * The object branch of an option that is `true` for its defaults or an object of settings (`pdf.compress`),
 * or undefined for any other schema.
 */
function switchedObject(schema: JsonSchema, doc: OpenApiDocument): JsonSchema | undefined {
  const branches = (schema.anyOf ?? []).filter((branch) => branch.type !== 'null').map((branch) => unwrap(branch, doc));
  if (branches.length !== 2 || !branches.some((branch) => branch.type === 'boolean')) return undefined;
  return branches.find((branch) => branch.type === 'object' && branch.properties);
}

/**
 * An on/off option with settings (`pdf.compress`): a switch (default, on, off) and the settings' own
 * fields below it. Read back as `true` when on with no setting given, the settings when some are, `false` when off.
 */
function switchFieldset(name: string, path: string, schema: JsonSchema, settings: JsonSchema, doc: OpenApiDocument, skip: Set<string>): HTMLFieldSetElement {
  const fieldset = buildFieldset(name, path, settings, doc, skip);
  fieldset.classList.add('switched');
  fieldset.querySelector(':scope > .field-error')?.after(field(path, name, schema, 'switch'));
  return fieldset;
}

/** Builds the fieldset of an object schema's properties, skipping `skip` (paths the editor owns). */
export function buildFieldset(title: string, path: string, schema: JsonSchema, doc: OpenApiDocument, skip: Set<string>): HTMLFieldSetElement {
  const fieldset = document.createElement('fieldset');
  fieldset.dataset.group = path;
  const legend = document.createElement('legend');
  legend.textContent = title;
  fieldset.append(legend);
  const error = document.createElement('span');
  error.className = 'field-error';
  error.dataset.errorFor = path;
  fieldset.append(error);
  for (const [name, raw] of Object.entries(unwrap(schema, doc).properties ?? {})) {
    const childPath = `${path}.${name}`;
    if (skip.has(childPath)) continue;
    const child = unwrap(raw, doc);
    const settings = switchedObject(child, doc);
    if (settings) {
      fieldset.append(switchFieldset(name, childPath, child, settings, doc, skip));
    } else if (child.type === 'object' && child.properties && !child.anyOf) {
      fieldset.append(buildFieldset(name, childPath, child, doc, skip));
    } else {
      fieldset.append(field(childPath, name, child, kindOf(child)));
    }
  }
  return fieldset;
}

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

function controls(root: ParentNode): Control[] {
  return [...root.querySelectorAll<Control>('[data-path]')];
}

/** An input's value as the API takes it, or undefined when empty; throws on JSON that does not parse. */
function readControl(element: Control): unknown {
  const text = element.value.trim();
  if (text === '') return undefined;
  switch (element.dataset.kind) {
    case 'boolean':
    case 'switch':
      return text === 'true';
    case 'enum':
      return element.dataset.numeric === 'true' ? Number(text) : element.value;
    case 'number':
    case 'integer':
      return Number(text);
    case 'number-or-string':
      return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
    case 'base64':
      return encodeBase64(element.value);
    case 'json':
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new FormJsonError(element.dataset.path ?? '', 'Not valid JSON');
      }
    default:
      return element.value;
  }
}

/** A JSON field of the form that does not parse. */
export class FormJsonError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'FormJsonError';
  }
}

/** The options the form holds, nested by path (`{pdf: {margin: {top: '1cm'}}}`); empty fields are left out. */
export function readForm(root: ParentNode): Record<string, Record<string, unknown>> {
  const result: Record<string, unknown> = {};
  // A switch (pdf.compress) on: its settings' object, `true` if none is given; off: `false`, its settings ignored.
  const on: string[] = [];
  const off: string[] = [];
  for (const element of controls(root)) {
    if (element.closest('[hidden]')) continue;
    const path = element.dataset.path ?? '';
    if (off.some((prefix) => path.startsWith(`${prefix}.`))) continue;
    const value = readControl(element);
    if (element.dataset.kind === 'switch') {
      if (value === false) off.push(path);
      if (value !== true) continue;
      on.push(path);
    }
    if (value === undefined) continue;
    const keys = path.split('.');
    let target = result;
    for (const key of keys.slice(0, -1)) target = (target[key] ??= {}) as Record<string, unknown>;
    target[keys.at(-1) ?? ''] = element.dataset.kind === 'switch' ? (target[keys.at(-1) ?? ''] ?? {}) : value;
  }
  for (const path of on) {
    const keys = path.split('.');
    const parent = keys.slice(0, -1).reduce<Record<string, unknown> | undefined>((node, key) => node?.[key] as Record<string, unknown> | undefined, result);
    const last = keys.at(-1) ?? '';
    if (parent && Object.keys((parent[last] as object) ?? {}).length === 0) parent[last] = true;
  }
  for (const path of off) {
    const keys = path.split('.');
    let target = result;
    for (const key of keys.slice(0, -1)) target = (target[key] ??= {}) as Record<string, unknown>;
    target[keys.at(-1) ?? ''] = false;
  }
  return result as Record<string, Record<string, unknown>>;
}

/** Shows stored options in the form (every control not named is emptied). */
export function fillForm(root: ParentNode, values: Record<string, unknown>): void {
  for (const element of controls(root)) {
    let value: unknown = values;
    for (const key of (element.dataset.path ?? '').split('.')) {
      value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    }
    if (value === undefined || value === null) element.value = '';
    else if (element.dataset.kind === 'switch') element.value = value === false ? 'false' : 'true';
    else if (element.dataset.kind === 'json') element.value = JSON.stringify(value);
    else if (element.dataset.kind === 'base64') element.value = decodeBase64(String(value));
    else element.value = String(value);
  }
}
