/** GET /v1/usage: the caller's calls, tokens and cost by day, earnings as a publisher, and the latest calls. */
import { Elysia, t } from "elysia";
import { MICROS_PER_DOLLAR } from "../accounts/service.ts";
import { authenticated, type AuthDeps } from "../http/auth.ts";
import { secured } from "../http/openapi.ts";
import type { Clock } from "../clock.ts";
import type { UsageRecorder } from "./recorder.ts";
import { earningsByDay, recentCalls, usageByDay } from "./queries.ts";

const dollars = (micros: number) => micros / MICROS_PER_DOLLAR;

const Day = t.Object({ date: t.String(), calls: t.Integer(), tokens: t.Integer(), cost: t.Number({ description: "US dollars." }), earnings: t.Number({ description: "US dollars earned as a publisher." }), earning_calls: t.Integer() });

export function usageRoutes(auth: AuthDeps, deps: { usage: UsageRecorder; clock: Clock }) {
  return new Elysia({ prefix: "/v1" }).use(authenticated(auth)).get(
    "/usage",
    async ({ caller, query }) => {
      // What this process has buffered is part of the answer.
      await deps.usage.flush();
      const days = query.days ?? 30;
      const until = new Date(deps.clock.now());
      const since = new Date(Date.UTC(until.getUTCFullYear(), until.getUTCMonth(), until.getUTCDate()) - (days - 1) * 86_400_000);
      const db = auth.accounts.db;
      const [usage, earnings, recent] = await Promise.all([usageByDay(db, caller.accountId, since), earningsByDay(db, caller.accountId, since), recentCalls(db, caller.accountId, 20)]);
      const byDay = new Map<string, { calls: number; tokens: number; cost: number; earnings: number; earning_calls: number }>();
      for (let i = 0; i < days; i++) byDay.set(new Date(since.getTime() + i * 86_400_000).toISOString().slice(0, 10), { calls: 0, tokens: 0, cost: 0, earnings: 0, earning_calls: 0 });
      for (const row of usage) Object.assign(byDay.get(row.day) ?? {}, { calls: row.calls, tokens: row.tokens, cost: dollars(row.micros) });
      for (const row of earnings) Object.assign(byDay.get(row.day) ?? {}, { earnings: dollars(row.micros), earning_calls: row.calls });
      const rows = [...byDay.entries()].map(([date, totals]) => ({ date, ...totals }));
      const sum = (key: "calls" | "tokens" | "cost" | "earnings" | "earning_calls") => rows.reduce((s, r) => s + r[key], 0);
      return {
        since: since.toISOString().slice(0, 10),
        until: until.toISOString().slice(0, 10),
        days: rows,
        totals: { calls: sum("calls"), tokens: sum("tokens"), cost: sum("cost"), earnings: sum("earnings"), earning_calls: sum("earning_calls") },
        recent: recent.map((r) => ({ route: r.route, status: r.status, tokens: r.tokens, cost: dollars(r.costMicros), api_id: r.apiId, request_id: r.requestId, at: r.createdAt.toISOString() })),
      };
    },
    {
      query: t.Object({ days: t.Optional(t.Numeric({ minimum: 1, maximum: 365, description: "How many days back, today included (default 30)." })) }),
      response: {
        200: t.Object({
          since: t.String(),
          until: t.String(),
          days: t.Array(Day),
          totals: t.Object({ calls: t.Integer(), tokens: t.Integer(), cost: t.Number(), earnings: t.Number(), earning_calls: t.Integer() }),
          recent: t.Array(t.Object({ route: t.String(), status: t.Integer(), tokens: t.Integer(), cost: t.Number(), api_id: t.Nullable(t.Integer({ description: "The designed endpoint version the call ran, if it ran one of yours." })), request_id: t.Nullable(t.String()), at: t.String() })),
        }),
      },
      detail: secured({ tags: ["Account"], summary: "Usage by day (calls, tokens, cost), earnings as a publisher, and the latest calls" }),
    },
  );
}
