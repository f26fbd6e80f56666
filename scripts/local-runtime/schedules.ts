import { randomUUID } from 'node:crypto';
import type { ScheduledEvent } from 'aws-lambda';
import type { LambdaRuntime } from './lambda-runtime.js';
import type { LocalFunction, ScheduleSource } from './service-definition.js';

const UNIT_MS: Record<string, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** Milliseconds between runs of `rate(5 minutes)`; undefined for `cron(…)` and anything else. */
export function rateIntervalMs(expression: string): number | undefined {
  const match = /^rate\(\s*(\d+)\s+(minute|hour|day)s?\s*\)$/.exec(expression.trim());
  if (!match?.[1] || !match[2]) return undefined;
  return Number(match[1]) * (UNIT_MS[match[2]] as number);
}

/** The EventBridge event a schedule delivers, or the schedule's own `input` when it has one. */
export function scheduledEvent(fn: LocalFunction, schedule: ScheduleSource, region: string, accountId: string): unknown {
  if (schedule.input !== undefined) return schedule.input;
  const event: ScheduledEvent = {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: accountId,
    time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region,
    resources: [`arn:aws:events:${region}:${accountId}:rule/${fn.name}-schedule`],
    detail: {},
  };
  return event;
}

/**
 * Runs functions with `rate(…)` schedules on their interval, the first run one
 * interval after start as EventBridge does. `cron(…)` schedules are not run
 * locally; invoke them by hand with `POST /__local/invoke/<function>`.
 */
export function startSchedules(opts: {
  functions: LocalFunction[];
  runtime: LambdaRuntime;
  region: string;
  accountId: string;
}): { stop(): void; skipped: string[] } {
  const timers: NodeJS.Timeout[] = [];
  const skipped: string[] = [];
  for (const fn of opts.functions) {
    for (const schedule of fn.schedules) {
      if (!schedule.enabled) continue;
      const interval = rateIntervalMs(schedule.expression);
      if (interval === undefined) {
        skipped.push(`${fn.key}: ${schedule.expression}`);
        continue;
      }
      const timer = setInterval(() => {
        void opts.runtime.invoke(fn, scheduledEvent(fn, schedule, opts.region, opts.accountId));
      }, interval);
      timer.unref();
      timers.push(timer);
    }
  }
  return { stop: () => timers.forEach(clearInterval), skipped };
}
