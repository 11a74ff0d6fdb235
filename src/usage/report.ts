/**
 * An account's usage report: calls, tokens and cost by day (every day of the
 * window, zeros included), earnings as a publisher, and the latest calls.
 */
import type { Static } from "@sinclair/typebox";
import type { Database } from "../../db/client.ts";
import { MICROS_PER_DOLLAR } from "../accounts/service.ts";
import type { Clock } from "../clock.ts";
import type { UsageReport } from "./model.ts";
import { dashboardCalls, earningsByDay, recentCalls, usageByDay, type UsageScope } from "./queries.ts";
import type { UsageRecorder } from "./recorder.ts";

export interface UsageContext {
  db: Database;
  usage: UsageRecorder;
  clock: Clock;
}

const DAY_MS = 86_400_000;
const RECENT_CALLS = 20;
const dollars = (micros: number) => micros / MICROS_PER_DOLLAR;

/**
 * `scope` "api" counts the account's API usage: its keys' calls, and the research its dashboard sessions ran; the
 * dashboard's own browsing is only counted apart (totals.dashboard_calls). "all" counts that too.
 */
export async function usageReport(
  ctx: UsageContext,
  accountId: string,
  days: number,
  scope: UsageScope,
): Promise<Static<typeof UsageReport>> {
  // What this process has buffered is part of the answer.
  await ctx.usage.flush();
  const until = new Date(ctx.clock.now());
  const since = new Date(Date.UTC(until.getUTCFullYear(), until.getUTCMonth(), until.getUTCDate()) - (days - 1) * DAY_MS);
  const [usage, earnings, recent, dashboard] = await Promise.all([
    usageByDay(ctx.db, accountId, since, scope),
    earningsByDay(ctx.db, accountId, since),
    recentCalls(ctx.db, accountId, RECENT_CALLS, scope),
    dashboardCalls(ctx.db, accountId, since),
  ]);
  const byDay = new Map<string, { calls: number; tokens: number; cost: number; earnings: number; earning_calls: number }>();
  for (let i = 0; i < days; i++)
    byDay.set(new Date(since.getTime() + i * DAY_MS).toISOString().slice(0, 10), {
      calls: 0,
      tokens: 0,
      cost: 0,
      earnings: 0,
      earning_calls: 0,
    });
  for (const row of usage) Object.assign(byDay.get(row.day) ?? {}, { calls: row.calls, tokens: row.tokens, cost: dollars(row.micros) });
  for (const row of earnings) Object.assign(byDay.get(row.day) ?? {}, { earnings: dollars(row.micros), earning_calls: row.calls });
  const rows = [...byDay.entries()].map(([date, totals]) => ({ date, ...totals }));
  const sum = (key: "calls" | "tokens" | "cost" | "earnings" | "earning_calls") => rows.reduce((s, r) => s + r[key], 0);
  return {
    since: since.toISOString().slice(0, 10),
    until: until.toISOString().slice(0, 10),
    days: rows,
    totals: {
      calls: sum("calls"),
      tokens: sum("tokens"),
      cost: sum("cost"),
      earnings: sum("earnings"),
      earning_calls: sum("earning_calls"),
      dashboard_calls: dashboard,
    },
    recent: recent.map((r) => ({
      route: r.route,
      status: r.status,
      tokens: r.tokens,
      cost: dollars(r.costMicros),
      api_id: r.apiId,
      request_id: r.requestId,
      auth: r.auth,
      at: r.createdAt.toISOString(),
    })),
  };
}
