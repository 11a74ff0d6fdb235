/** Usage and earnings by day, for the caller only: every function takes the owner's account id. */
import { and, desc, eq, gte, sql, type AnyColumn, type SQL } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { publishedEndpoints, usageRecords } from "../../db/schema.ts";

export interface DayTotals {
  day: string;
  calls: number;
  tokens: number;
  micros: number;
}

/** A day's (or the window's) failures by status class, and its latency percentiles where calls recorded one. */
export interface CallStats {
  clientErrors: number;
  serverErrors: number;
  p50: number | null;
  p95: number | null;
}

const day = sql<string>`to_char(${usageRecords.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;

/** Percentiles skip the nulls of records written before latency was kept; no latency at all is null. */
const stats = {
  clientErrors: sql<number>`count(*) filter (where ${usageRecords.status} between 400 and 499)::int`,
  serverErrors: sql<number>`count(*) filter (where ${usageRecords.status} >= 500)::int`,
  p50: sql<number | null>`percentile_cont(0.5) within group (order by ${usageRecords.latencyMs})`,
  p95: sql<number | null>`percentile_cont(0.95) within group (order by ${usageRecords.latencyMs})`,
};
const ms = (value: number | string | null) => (value === null ? null : Math.round(Number(value)));
const statsOf = (row: { clientErrors: number; serverErrors: number; p50: number | string | null; p95: number | string | null }) => ({
  clientErrors: Number(row.clientErrors),
  serverErrors: Number(row.serverErrors),
  p50: ms(row.p50),
  p95: ms(row.p95),
});

/** Calls, tokens and money (`micros`, the column summed) per UTC day of the rows `where` picks. */
async function totalsByDay(db: Database, micros: AnyColumn, where: SQL | undefined): Promise<DayTotals[]> {
  const rows = await db
    .select({
      day,
      calls: sql<number>`count(*)::int`,
      tokens: sql<number>`coalesce(sum(${usageRecords.tokens}), 0)::bigint`,
      micros: sql<number>`coalesce(sum(${micros}), 0)::bigint`,
    })
    .from(usageRecords)
    .where(where)
    .groupBy(day)
    .orderBy(day);
  return rows.map((r) => ({ day: r.day, calls: Number(r.calls), tokens: Number(r.tokens), micros: Number(r.micros) }));
}

/**
 * The dashboard's own calls: a session's calls that are not billable (its reads of keys, listings, the balance, its
 * credit). A session's research (the playground) is usage like a key's, and a key's calls are all usage.
 */
const dashboardOwn = sql`(${usageRecords.auth} = 'session' and not ${usageRecords.billable})`;

/** Which calls a usage view counts: the account's API usage, or that and the dashboard's own calls too. */
export type UsageScope = "api" | "all";
const inScope = (scope: UsageScope) => (scope === "api" ? sql`not ${dashboardOwn}` : undefined);

/**
 * Which of the account's calls a view narrows to: one key's, one route's, one endpoint version's. A key id is only
 * ever compared beside the account's own id, so another account's key picks nothing (and says nothing of it).
 */
export interface UsageFilter {
  keyId?: string;
  route?: string;
  apiId?: number;
}

/** The account's calls since `since` in scope and through the filter: what days, totals and the route list read. */
function callsOf(accountId: string, since: Date | null, scope: UsageScope, filter: UsageFilter): SQL | undefined {
  return and(
    eq(usageRecords.accountId, accountId),
    since ? gte(usageRecords.createdAt, since) : undefined,
    inScope(scope),
    filter.keyId !== undefined ? eq(usageRecords.apiKeyId, filter.keyId) : undefined,
    filter.route !== undefined ? eq(usageRecords.route, filter.route) : undefined,
    filter.apiId !== undefined ? eq(usageRecords.apiId, filter.apiId) : undefined,
  );
}

export function usageByDay(
  db: Database,
  accountId: string,
  since: Date,
  scope: UsageScope,
  filter: UsageFilter = {},
): Promise<DayTotals[]> {
  return totalsByDay(db, usageRecords.costMicros, callsOf(accountId, since, scope, filter));
}

/** Failures by status class and latency percentiles, per UTC day ("YYYY-MM-DD" keys) and over the whole window (`all`). */
export async function callStats(
  db: Database,
  accountId: string,
  since: Date,
  scope: UsageScope,
  filter: UsageFilter,
): Promise<{ byDay: Map<string, CallStats>; all: CallStats }> {
  const where = callsOf(accountId, since, scope, filter);
  const [days, [all]] = await Promise.all([
    db
      .select({ day, ...stats })
      .from(usageRecords)
      .where(where)
      .groupBy(day),
    db.select(stats).from(usageRecords).where(where),
  ]);
  return {
    byDay: new Map(days.map((row) => [row.day, statsOf(row)])),
    all: all ? statsOf(all) : { clientErrors: 0, serverErrors: 0, p50: null, p95: null },
  };
}

/** How many of the account's calls since `since` were the dashboard's own (see dashboardOwn): shown apart from its usage. */
export async function dashboardCalls(db: Database, accountId: string, since: Date, filter: UsageFilter = {}): Promise<number> {
  const [row] = await db
    .select({ calls: sql<number>`count(*)::int` })
    .from(usageRecords)
    .where(and(callsOf(accountId, since, "all", filter), dashboardOwn));
  return Number(row?.calls ?? 0);
}

/** The routes the account called in the window (in scope, through the key filter only): what the route filter may be set to. */
export async function routesCalled(db: Database, accountId: string, since: Date, scope: UsageScope, filter: UsageFilter) {
  const rows = await db
    .select({ route: usageRecords.route, calls: sql<number>`count(*)::int` })
    .from(usageRecords)
    .where(callsOf(accountId, since, scope, { keyId: filter.keyId }))
    .groupBy(usageRecords.route)
    .orderBy(desc(sql`count(*)`), usageRecords.route)
    .limit(100);
  return rows.map((row) => ({ route: row.route, calls: Number(row.calls) }));
}

/** What others' paying runs of this account's published endpoints earned it. */
export function earningsByDay(db: Database, publisherAccountId: string, since: Date): Promise<DayTotals[]> {
  return totalsByDay(
    db,
    usageRecords.earningsMicros,
    and(
      eq(usageRecords.publisherAccountId, publisherAccountId),
      gte(usageRecords.createdAt, since),
      sql`${usageRecords.accountId} <> ${publisherAccountId}`,
    ),
  );
}

/** The latest calls (of any time) through the filter, with the public stub of the listing a call ran, when it ran one. */
export async function recentCalls(db: Database, accountId: string, limit: number, scope: UsageScope, filter: UsageFilter = {}) {
  return db
    .select({
      route: usageRecords.route,
      status: usageRecords.status,
      tokens: usageRecords.tokens,
      costMicros: usageRecords.costMicros,
      apiId: usageRecords.apiId,
      publishedId: usageRecords.publishedId,
      publicStub: publishedEndpoints.publicStub,
      keyId: usageRecords.apiKeyId,
      latencyMs: usageRecords.latencyMs,
      requestId: usageRecords.requestId,
      auth: usageRecords.auth,
      createdAt: usageRecords.createdAt,
    })
    .from(usageRecords)
    .leftJoin(publishedEndpoints, eq(publishedEndpoints.id, usageRecords.publishedId))
    .where(callsOf(accountId, null, scope, filter))
    .orderBy(desc(usageRecords.createdAt), desc(usageRecords.id))
    .limit(limit);
}

/** A usage record as the batch insert sends it: the columns by their names in the table. */
export interface UsageRecordRow {
  account_id: string;
  api_key_id: string | null;
  route: string;
  status: number;
  tokens: number;
  cost_micros: number;
  publisher_account_id: string | null;
  published_id: string | null;
  api_id: number | null;
  earnings_micros: number;
  request_id: string;
  /** How the caller signed in: an API key, or a dashboard session. */
  auth: "key" | "session";
  billable: boolean;
  /** How long the call took (ms); null when it was not measured (a record made without a call). */
  latency_ms: number | null;
  /** Milliseconds since the epoch: a Date in JSON.stringify costs six times what a number does (its toJSON). */
  created_at: number;
}

/** A usage record to write, and what it debits from a Pro balance when it is written. */
export interface UsageWrite extends UsageRecordRow {
  event_id: string;
  debit_micros: number;
}

/**
 * Writes a batch of usage records and their debits in ONE statement, so it
 * is atomic without a transaction and costs one round trip: the rows go as
 * one JSON parameter, unpacked by jsonb_to_recordset (building a multi-row
 * VALUES through the query builder cost more CPU than the rest of a call's
 * hot path together; JSON.stringify is native, and both drivers send one
 * text parameter alike). A row whose event id is already written (or twice
 * in the batch) inserts nothing and debits nothing. Returns the accounts
 * whose balance it debited.
 */
export async function writeUsage(db: Database, rows: UsageWrite[]): Promise<string[]> {
  if (rows.length === 0) return [];
  // Most batches move no money (failed calls, calls that are not billable): a plain insert, without the debits' joins.
  if (!rows.some((row) => row.debit_micros > 0)) {
    await db.execute(
      sql`insert into usage_records (${COLUMNS}) select ${SELECTED} from ${recordset(rows)} on conflict (event_id) do nothing`,
    );
    return [];
  }
  const debited = await db.execute(sql`
    with input as (
      select distinct on (event_id) * from ${recordset(rows)}
    ), inserted as (
      insert into usage_records (${COLUMNS}) select ${SELECTED} from input
      on conflict (event_id) do nothing
      returning event_id
    ), debits as (
      select input.account_id, sum(input.debit_micros) as micros
      from input join inserted on inserted.event_id = input.event_id
      where input.debit_micros > 0
      group by input.account_id
    ), locked as (
      -- Balances are locked in one order (by id): two writes debiting the same accounts cannot deadlock.
      select accounts.id from accounts where accounts.id in (select account_id from debits) order by accounts.id for update
    )
    update accounts set balance_micros = greatest(accounts.balance_micros - debits.micros, 0), updated_at = now()
    from debits join locked on locked.id = debits.account_id
    where accounts.id = debits.account_id
    returning accounts.id`);
  return rowsOf(debited).map((row) => String(row.id));
}

/** The columns a usage record is written with, and what the insert selects for them from the recordset, in one order. */
const NAMES =
  "account_id, api_key_id, route, status, tokens, cost_micros, publisher_account_id, published_id, api_id, earnings_micros, request_id, event_id, auth, billable, latency_ms";
const COLUMNS = sql.raw(`${NAMES}, created_at`);
const SELECTED = sql.raw(`${NAMES}, to_timestamp(created_at / 1000.0)`);

/** The rows as one JSON parameter, unpacked into a relation `r` (with each row's debit beside its columns). */
const recordset = (rows: UsageWrite[]) => sql`jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(account_id text, api_key_id text,
  route text, status smallint, tokens integer, cost_micros bigint, publisher_account_id text, published_id text, api_id integer,
  earnings_micros bigint, request_id text, event_id text, auth text, billable boolean, latency_ms integer, created_at double precision, debit_micros bigint)`;

/** The rows of an execute() result: postgres.js answers an array, PGlite an object with `rows`. */
export function rowsOf(result: unknown): Record<string, unknown>[] {
  if (Array.isArray(result)) return result as Record<string, unknown>[];
  return ((result as { rows?: unknown[] }).rows ?? []) as Record<string, unknown>[];
}
