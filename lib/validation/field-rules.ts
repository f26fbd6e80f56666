/**
 * Rules between the fields of one object (issue 45), written once and read
 * twice: as the valibot check the service runs (a 400 naming every field the
 * rule involves) and as the JSON Schema the OpenAPI document states
 * (`not: { allOf: [...] }`). A rule is declarative (which fields, given or
 * holding which values) so that the two forms cannot say different things;
 * lib/openapi finds a check's JSON Schema with `fieldRulesJsonSchema`.
 */
import * as v from 'valibot';

/**
 * A field that holds a value: present, and neither null, false, an empty
 * string nor an empty list. A field is named by its path from the object
 * the rule is on, dotted for a field of a nested object (`image.quality`).
 */
export type GivenCondition = { field: string; given: true };
/** A field that holds one of these values. */
export type ValueCondition = { field: string; oneOf: readonly (string | number | boolean)[] };
/** A field that holds none of these values (absent or null included: a default outside the list). */
export type OtherValueCondition = { field: string; notOneOf: readonly (string | number | boolean)[] };
export type FieldCondition = GivenCondition | ValueCondition | OtherValueCondition;
/** Any of these conditions (one kind of thing, asked for by any of several fields). */
export type AnyCondition = { anyOf: readonly FieldCondition[] };

/**
 * Fields that cannot go together: when every condition holds, a 400 on each
 * field that holds one, with `message` (or the message made from the fields
 * that hold, condition by condition).
 */
export type FieldConflict = {
  when: readonly (FieldCondition | AnyCondition)[];
  message: string | ((held: string[][]) => string);
  /** The fields the 400 names, when not every field involved is at fault (a value that only selects when the rule applies). */
  names?: readonly string[];
};

type JsonObject = Record<string, unknown>;

/** Whether a value counts as given: what a caller sends to ask for something. */
export function isGiven(value: unknown): boolean {
  return value != null && value !== false && value !== '' && !(Array.isArray(value) && value.length === 0);
}

/** The value at a dotted path, undefined where an object on the way is missing. */
function valueAt(object: Record<string, unknown>, field: string): unknown {
  let value: unknown = object;
  for (const key of field.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function holds(condition: FieldCondition, object: Record<string, unknown>): boolean {
  const value = valueAt(object, condition.field);
  if ('given' in condition) return isGiven(value);
  if ('oneOf' in condition) return condition.oneOf.includes(value as string);
  return !condition.notOneOf.includes(value as string);
}

/** The fields of each condition that hold (one for a field's condition, any number for `anyOf`); undefined unless all hold. */
function heldFields(conflict: FieldConflict, object: Record<string, unknown>): string[][] | undefined {
  const held = conflict.when.map((condition) =>
    'anyOf' in condition ? condition.anyOf.filter((inner) => holds(inner, object)).map((inner) => inner.field) : holds(condition, object) ? [condition.field] : [],
  );
  return held.every((fields) => fields.length > 0) ? held : undefined;
}

/** The same reading as `isGiven`, in JSON Schema. */
const NOT_GIVEN: JsonObject = { anyOf: [{ type: 'null' }, { const: false }, { const: '' }, { type: 'array', maxItems: 0 }] };

/** `value` at a dotted path in JSON Schema: every object on the way present (and an object), the last field holding `value`. */
function atPath(field: string, value: JsonObject): JsonObject {
  const [key, ...rest] = field.split('.');
  const inner = rest.length === 0 ? value : { type: 'object', ...atPath(rest.join('.'), value) };
  return { required: [key], properties: { [key!]: inner } };
}

/** A condition in JSON Schema: the field is present and holds what the condition says (or, for `notOneOf`, not so). */
function conditionJson(condition: FieldCondition): JsonObject {
  if ('notOneOf' in condition) return { not: atPath(condition.field, { enum: [...condition.notOneOf] }) };
  return atPath(condition.field, 'given' in condition ? { not: NOT_GIVEN } : { enum: [...condition.oneOf] });
}

/** The JSON Schema of one conflict: not every condition at once. */
export function conflictJsonSchema(conflict: FieldConflict): JsonObject {
  return { not: { allOf: conflict.when.map((condition) => ('anyOf' in condition ? { anyOf: condition.anyOf.map(conditionJson) } : conditionJson(condition))) } };
}

/** A field that must not be given (or, with `field`, must not have that sub-field given) in some object: a 400 with `message`. */
export type FieldRefusal = { key: string; message: string; field?: string };

/** The refusal in JSON Schema: the key (or its sub-field) not given. */
export function refusalJsonSchema(refusal: FieldRefusal): JsonObject {
  if (refusal.field === undefined) return { properties: { [refusal.key]: NOT_GIVEN } };
  return { properties: { [refusal.key]: { anyOf: [{ type: 'null' }, { type: 'object', properties: { [refusal.field]: NOT_GIVEN } }] } } };
}

const refused = (refusal: FieldRefusal, object: Record<string, unknown>): boolean => {
  const value = object[refusal.key];
  if (refusal.field === undefined) return isGiven(value);
  return value !== null && typeof value === 'object' && isGiven((value as Record<string, unknown>)[refusal.field]);
};

/** What each check made here states in JSON Schema: the OpenAPI conversion reads it by the check. */
const JSON_SCHEMAS = new WeakMap<object, readonly JsonObject[]>();

/** The JSON Schema rules of a check made by `fieldRules` (or undefined for any other schema or action). */
export function fieldRulesJsonSchema(check: unknown): readonly JsonObject[] | undefined {
  return typeof check === 'object' && check !== null ? JSON_SCHEMAS.get(check) : undefined;
}

const pathTo = (input: Record<string, unknown>, key: string): [v.IssuePathItem] => [{ type: 'object', origin: 'value', input, key, value: input[key] }];

/** The issue path of a dotted field, each step with the object it is read from. */
function issuePath(input: Record<string, unknown>, field: string): [v.IssuePathItem, ...v.IssuePathItem[]] {
  const [first, ...rest] = field.split('.') as [string, ...string[]];
  const path: [v.IssuePathItem, ...v.IssuePathItem[]] = pathTo(input, first);
  let object = input[first] as Record<string, unknown>;
  for (const key of rest) {
    path.push(...pathTo(object, key));
    object = object[key] as Record<string, unknown>;
  }
  return path;
}

/**
 * The check of an object's conflicts and refusals: each conflict that holds
 * is an issue on every field it names; each refused field given is an issue
 * on it (or its sub-field). Runs once the object is read (typed), as the
 * rules assume its fields' own shapes.
 */
export function fieldRules<T extends object>(rules: { conflicts?: readonly FieldConflict[]; refusals?: readonly FieldRefusal[] }) {
  const conflicts = rules.conflicts ?? [];
  const refusals = rules.refusals ?? [];
  const check = v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const input = dataset.value as Record<string, unknown>;
    for (const refusal of refusals) {
      if (!refused(refusal, input)) continue;
      const path = pathTo(input, refusal.key);
      const inner = input[refusal.key] as Record<string, unknown>;
      addIssue({ message: refusal.message, path: refusal.field === undefined ? path : [...path, ...pathTo(inner, refusal.field)] });
    }
    for (const conflict of conflicts) {
      const held = heldFields(conflict, input);
      if (!held) continue;
      const message = typeof conflict.message === 'string' ? conflict.message : conflict.message(held);
      for (const field of held.flat().filter((name) => conflict.names?.includes(name) ?? true)) addIssue({ message, path: issuePath(input, field) });
    }
  });
  JSON_SCHEMAS.set(check, [...refusals.map(refusalJsonSchema), ...conflicts.map(conflictJsonSchema)]);
  return check;
}
