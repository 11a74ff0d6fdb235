/**
 * An account's usage report: calls, tokens and cost by day (every day of the
 * window, zeros included), earnings as a publisher, and the latest calls.
 */
import type { Static } from "@sinclair/typebox";
import type { Database } from "../../db/client.ts";
import { MICROS_PER_DOLLAR } from "../accounts/service.ts";
import type { Clock } from "../clock.ts";
import type { UsageReport } from "./model.ts";
import {
  callStats,
  dashboardCalls,
  earningsByDay,
  recentCalls,
  routesCalled,
  usageByDay,
  type UsageFilter,
  type UsageScope,
} from "./queries.ts";
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
 * dashboard's own browsing is only counted apart (totals.dashboard_calls). "all" counts that too. `filter` narrows
 * days, totals and recent calls to one key, route or endpoint version; earnings as a publisher are never narrowed.
 */
export async function usageReport(
  ctx: UsageContext,
  accountId: string,
  days: number,
  scope: UsageScope,
  filter: UsageFilter = {},
): Promise<Static<typeof UsageReport>> {
  // What this process has buffered is part of the answer.
  await ctx.usage.flush();
  const until = new Date(ctx.clock.now());
  const since = new Date(Date.UTC(until.getUTCFullYear(), until.getUTCMonth(), until.getUTCDate()) - (days - 1) * DAY_MS);
  const [usage, stats, earnings, recent, dashboard, routes] = await Promise.all([
    usageByDay(ctx.db, accountId, since, scope, filter),
    callStats(ctx.db, accountId, since, scope, filter),
    earningsByDay(ctx.db, accountId, since),
    recentCalls(ctx.db, accountId, RECENT_CALLS, scope, filter),
    dashboardCalls(ctx.db, accountId, since, filter),
    routesCalled(ctx.db, accountId, since, scope, filter),
  ]);
  const rows: Static<typeof UsageReport>["days"] = [];
  const byDay = new Map<string, (typeof rows)[number]>();
  for (let i = 0; i < days; i++) {
    const date = new Date(since.getTime() + i * DAY_MS).toISOString().slice(0, 10);
    const row = {
      date,
      calls: 0,
      client_errors: 0,
      server_errors: 0,
      tokens: 0,
      cost: 0,
      latency_p50_ms: null,
      latency_p95_ms: null,
      earnings: 0,
      earning_calls: 0,
    };
    rows.push(row);
    byDay.set(date, row);
  }
  for (const row of usage) Object.assign(byDay.get(row.day) ?? {}, { calls: row.calls, tokens: row.tokens, cost: dollars(row.micros) });
  for (const [date, day] of stats.byDay)
    Object.assign(byDay.get(date) ?? {}, {
      client_errors: day.clientErrors,
      server_errors: day.serverErrors,
      latency_p50_ms: day.p50,
      latency_p95_ms: day.p95,
    });
  for (const row of earnings) Object.assign(byDay.get(row.day) ?? {}, { earnings: dollars(row.micros), earning_calls: row.calls });
  const sum = (key: "calls" | "tokens" | "cost" | "earnings" | "earning_calls") => rows.reduce((s, r) => s + r[key], 0);
  return {
    since: since.toISOString().slice(0, 10),
    until: until.toISOString().slice(0, 10),
    days: rows,
    totals: {
      calls: sum("calls"),
      client_errors: stats.all.clientErrors,
      server_errors: stats.all.serverErrors,
      tokens: sum("tokens"),
      cost: sum("cost"),
      latency_p50_ms: stats.all.p50,
      latency_p95_ms: stats.all.p95,
      earnings: sum("earnings"),
      earning_calls: sum("earning_calls"),
      dashboard_calls: dashboard,
    },
    routes,
    recent: recent.map((r) => ({
      route: r.route,
      status: r.status,
      tokens: r.tokens,
      cost: dollars(r.costMicros),
      api_id: r.apiId,
      published_id: r.publishedId,
      public_stub: r.publicStub,
      key_id: r.keyId,
      latency_ms: r.latencyMs,
      request_id: r.requestId,
      auth: r.auth,
      at: r.createdAt.toISOString(),
    })),
  };
}
