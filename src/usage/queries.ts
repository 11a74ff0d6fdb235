/** Usage and earnings by day, for the caller only: every function takes the owner's account id. */
import { and, desc, eq, gte, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { usageRecords } from "../../db/schema.ts";

export interface DayTotals {
  day: string;
  calls: number;
  tokens: number;
  micros: number;
}

const day = sql<string>`to_char(${usageRecords.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;

export async function usageByDay(db: Database, accountId: string, since: Date): Promise<DayTotals[]> {
  const rows = await db
    .select({
      day,
      calls: sql<number>`count(*)::int`,
      tokens: sql<number>`coalesce(sum(${usageRecords.tokens}), 0)::bigint`,
      micros: sql<number>`coalesce(sum(${usageRecords.costMicros}), 0)::bigint`,
    })
    .from(usageRecords)
    .where(and(eq(usageRecords.accountId, accountId), gte(usageRecords.createdAt, since)))
    .groupBy(day)
    .orderBy(day);
  return rows.map((r) => ({ day: r.day, calls: Number(r.calls), tokens: Number(r.tokens), micros: Number(r.micros) }));
}

/** What others' paying runs of this account's published endpoints earned it. */
export async function earningsByDay(db: Database, publisherAccountId: string, since: Date): Promise<DayTotals[]> {
  const rows = await db
    .select({
      day,
      calls: sql<number>`count(*)::int`,
      tokens: sql<number>`coalesce(sum(${usageRecords.tokens}), 0)::bigint`,
      micros: sql<number>`coalesce(sum(${usageRecords.earningsMicros}), 0)::bigint`,
    })
    .from(usageRecords)
    .where(
      and(
        eq(usageRecords.publisherAccountId, publisherAccountId),
        gte(usageRecords.createdAt, since),
        sql`${usageRecords.accountId} <> ${publisherAccountId}`,
      ),
    )
    .groupBy(day)
    .orderBy(day);
  return rows.map((r) => ({ day: r.day, calls: Number(r.calls), tokens: Number(r.tokens), micros: Number(r.micros) }));
}

export async function recentCalls(db: Database, accountId: string, limit: number) {
  return db
    .select({
      route: usageRecords.route,
      status: usageRecords.status,
      tokens: usageRecords.tokens,
      costMicros: usageRecords.costMicros,
      apiId: usageRecords.apiId,
      requestId: usageRecords.requestId,
      createdAt: usageRecords.createdAt,
    })
    .from(usageRecords)
    .where(eq(usageRecords.accountId, accountId))
    .orderBy(desc(usageRecords.createdAt), desc(usageRecords.id))
    .limit(limit);
}
