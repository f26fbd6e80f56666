/**
 * The request side of the finishing registry (issue 45): what a caller may
 * write in a `pdf` object to ask for finishing, derived from the step
 * definitions in the registry's order and nothing else. The request
 * schemas spread `FINISHING_ENTRIES` and pipe `finishingRules`, so the
 * OpenAPI document, the docs check and the studio's form (both read the
 * document) follow; lib/plan makes the plan with `planFinishing`.
 */
import type * as v from 'valibot';
import { fieldRules, type FieldConflict, type FieldRefusal } from '../../validation/field-rules.js';
import type { previewOptions } from '../images/preview-options.js';
import { FINISHING_REGISTRY, NON_STEP_OPTIONS, type FinishingPlan, type RequestStep } from './registry.js';
import type { PlanContext, StepOptions } from './step-definition.js';

/** One group of options: a step's, or one that is no step's (the preview), under the plan's field it fills. */
export type OptionGroup = { readonly name: string; readonly options: StepOptions<v.ObjectEntries, unknown> };

/** Where a `pdf` object is: a render's or a merge's own, a merge part's, or a process request's (an existing PDF). */
export type OptionsPlace = 'render' | 'part' | 'existing';

/** The option groups of a registry, in its order, then the options that are no step's. */
export function optionGroupsOf(registry: readonly { name: string; options: unknown }[], extra: Readonly<Record<string, unknown>> = NON_STEP_OPTIONS): OptionGroup[] {
  const groups = registry.filter((definition) => typeof definition.options === 'object' && definition.options !== null && 'entries' in definition.options);
  return [...groups, ...Object.entries(extra).map(([name, options]) => ({ name, options }))] as OptionGroup[];
}

/** The product's option groups. */
export const OPTION_GROUPS: readonly OptionGroup[] = optionGroupsOf(FINISHING_REGISTRY);

type UnionToIntersection<U> = (U extends unknown ? (arg: U) => void : never) extends (arg: infer I) => void ? I : never;
type EntriesOf<D> = D extends { readonly options: StepOptions<infer Entries, infer _Plan> } ? Entries : never;

/** The `pdf` entries of every step a request asks for, and the preview's. */
export type FinishingEntries = UnionToIntersection<EntriesOf<RequestStep>> & (typeof previewOptions)['entries'];

/** Every group's entries in one object, in the groups' order. */
export function entriesOf(groups: readonly OptionGroup[]): v.ObjectEntries {
  const entries: v.ObjectEntries = {};
  for (const group of groups) {
    for (const [key, schema] of Object.entries(group.options.entries)) {
      if (key in entries) throw new Error(`Two finishing definitions own pdf.${key}`);
      entries[key] = schema;
    }
  }
  return entries;
}

/** The finishing options of a `pdf` object, as its schema spreads them. */
export const FINISHING_ENTRIES = entriesOf(OPTION_GROUPS) as FinishingEntries;

/** The rules between the options of every group. */
export const conflictsOf = (groups: readonly OptionGroup[]): FieldConflict[] => groups.flatMap((group) => group.options.conflicts ?? []);

/** The options refused at `place` (a merge part, an existing PDF), with each message. */
export function refusalsOf(groups: readonly OptionGroup[], place: Exclude<OptionsPlace, 'render'>): FieldRefusal[] {
  return groups.flatMap((group) =>
    Object.entries(group.options.refused?.[place] ?? {}).map(([key, refusal]) => ({ key, message: refusal!.message, ...(refusal!.field !== undefined ? { field: refusal!.field } : {}) })),
  );
}

/** The check of a `pdf` object at `place`: the rules between its options, and what is refused there. */
export function finishingRules<T extends object>(place: OptionsPlace, groups: readonly OptionGroup[] = OPTION_GROUPS) {
  return fieldRules<T>({ conflicts: place === 'part' ? [] : conflictsOf(groups), refusals: place === 'render' ? [] : refusalsOf(groups, place) });
}

/**
 * The finishing plan a `pdf` object's options ask for: each group's plan
 * made from its own options and those it reads. A plan's errors name paths
 * inside `pdf` (lib/pdf/errors.ts `OptionError`), which the caller prefixes.
 */
export function planFinishing(pdf: Readonly<Record<string, unknown>> | null | undefined, context: PlanContext, groups: readonly OptionGroup[] = OPTION_GROUPS): FinishingPlan {
  const plan: Record<string, unknown> = {};
  if (!pdf) return plan;
  for (const { name, options } of groups) {
    const own: Record<string, unknown> = {};
    for (const key of [...Object.keys(options.entries), ...(options.reads ?? [])]) own[key] = pdf[key];
    const made = options.plan(own, context);
    if (made !== undefined) plan[name] = made;
  }
  return plan as FinishingPlan;
}
