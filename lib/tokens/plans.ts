/** What a subscription allows: renders per calendar month and requests per second. */
export type SubscriptionTerms = {
  /** Monthly render quota; null means unlimited. */
  monthlyLimit: number | null;
  /** Requests per second, over every endpoint. */
  ratePerSecond: number;
};

/**
 * Named presets of terms. A token stores its terms, not a plan name, so that
 * changing this table never silently changes issued tokens; a token's plan is
 * the preset its terms match, else `custom`.
 */
export const PLANS = {
  free: { monthlyLimit: 100, ratePerSecond: 2 },
  pro: { monthlyLimit: 10_000, ratePerSecond: 20 },
  unlimited: { monthlyLimit: null, ratePerSecond: 100 },
} as const satisfies Record<string, SubscriptionTerms>;

export type PlanName = keyof typeof PLANS;

/** The plan of a token issued without `--plan`: what `npm start`'s own token gets. */
export const DEFAULT_PLAN: PlanName = 'unlimited';

/** True for the name of a preset. */
export function isPlanName(name: string): name is PlanName {
  return Object.hasOwn(PLANS, name);
}

/** The preset whose terms these are, or `custom` when they match none. */
export function planOf(terms: SubscriptionTerms): PlanName | 'custom' {
  for (const [name, preset] of Object.entries(PLANS)) {
    if (preset.monthlyLimit === terms.monthlyLimit && preset.ratePerSecond === terms.ratePerSecond) return name as PlanName;
  }
  return 'custom';
}
