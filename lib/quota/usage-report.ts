import { planOf, type PlanName } from '../tokens/plans.js';
import type { TokenRecord } from '../tokens/token-store.js';
import { readQuota, type QuotaUsage } from './quota.js';
import type { UsageStore } from './usage-store.js';

/** What `GET /v1/usage` and `tokens usage` answer. */
export type UsageReport = {
  plan: PlanName | 'custom';
  quota: QuotaUsage;
  rate: { perSecond: number };
};

/** The token's plan, this month's quota and units used, and its rate. */
export async function usageReport(store: UsageStore, token: TokenRecord, now = new Date()): Promise<UsageReport> {
  return {
    plan: planOf(token),
    quota: await readQuota(store, token, now),
    rate: { perSecond: token.ratePerSecond },
  };
}
