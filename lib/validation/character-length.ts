/**
 * Length limits in characters, as interface.md states them and JSON Schema's
 * `maxLength` counts them: Unicode code points. valibot's `maxLength` counts
 * UTF-16 units, in which a character outside the BMP (an emoji, many CJK
 * ideographs) takes two, so a name of 200 such characters would be refused.
 */
import * as v from 'valibot';

/** Number of Unicode code points in a string. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/**
 * `v.maxLength` counted in characters. It stays a `max_length` action with the
 * same requirement, so the OpenAPI conversion still publishes it as
 * `maxLength`; only strings whose UTF-16 length passes the limit are counted
 * again, and the original check reports those that are too long either way.
 */
export function maxCharacters<const TRequirement extends number, const TMessage extends string>(
  requirement: TRequirement,
  message: TMessage,
) {
  const action = v.maxLength<string, TRequirement, TMessage>(requirement, message);
  const run = action['~run'];
  return {
    ...action,
    '~run'(dataset: Parameters<typeof run>[0], config: Parameters<typeof run>[1]) {
      if (dataset.typed && characterCount(dataset.value) <= requirement) return dataset;
      return run.call(this, dataset, config);
    },
  } as typeof action;
}
