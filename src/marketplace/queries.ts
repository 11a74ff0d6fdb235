/**
 * The marketplace's storage. Listings and snapshots are public to every
 * authenticated account, so reads here take no owner; writes do (only an
 * endpoint's owner publishes it).
 */
import { and, asc, count, desc, eq, ilike, inArray, or, sql, type SQL } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { accounts, publishedEndpoints, publishedVersions, type AccountStatus } from "../../db/schema.ts";
import { couldBeStub } from "../ids.ts";
import { rowsOf } from "../usage/queries.ts";

export type PublishedRow = typeof publishedEndpoints.$inferSelect;
export type SnapshotRow = typeof publishedVersions.$inferSelect;

/** A listing with its publisher's name and standing (a call to a suspended publisher's endpoint is refused). */
export type ListingWithPublisher = PublishedRow & { publisherName: string; publisherStatus: AccountStatus };

export async function publishedByStub(db: Database, publicStub: string): Promise<ListingWithPublisher | null> {
  if (!couldBeStub(publicStub)) return null;
  const rows = await db
    .select({ published: publishedEndpoints, publisherName: accounts.name, publisherStatus: accounts.status })
    .from(publishedEndpoints)
    .innerJoin(accounts, eq(accounts.id, publishedEndpoints.ownerAccountId))
    .where(eq(publishedEndpoints.publicStub, publicStub))
    .limit(1);
  const row = rows[0];
  return row ? { ...row.published, publisherName: row.publisherName, publisherStatus: row.publisherStatus } : null;
}

/** The owner's listing of a lineage, if it was published. */
export async function publishedBySource(db: Database, ownerAccountId: string, sourceEndpointId: string): Promise<PublishedRow | null> {
  const rows = await db
    .select()
    .from(publishedEndpoints)
    .where(and(eq(publishedEndpoints.ownerAccountId, ownerAccountId), eq(publishedEndpoints.sourceEndpointId, sourceEndpointId)))
    .limit(1);
  return rows[0] ?? null;
}

export async function insertPublished(db: Database, row: typeof publishedEndpoints.$inferInsert): Promise<PublishedRow> {
  const [created] = await db.insert(publishedEndpoints).values(row).returning();
  return created!;
}

export async function updateListing(
  db: Database,
  ownerAccountId: string,
  id: string,
  changes: Partial<Pick<PublishedRow, "title" | "description" | "category" | "tags">>,
  at: Date,
): Promise<void> {
  await db
    .update(publishedEndpoints)
    .set({ ...changes, updatedAt: at })
    .where(and(eq(publishedEndpoints.ownerAccountId, ownerAccountId), eq(publishedEndpoints.id, id)));
}

export async function insertSnapshot(db: Database, row: typeof publishedVersions.$inferInsert): Promise<SnapshotRow> {
  const [created] = await db.insert(publishedVersions).values(row).returning();
  return created!;
}

export async function snapshots(db: Database, publishedId: string): Promise<SnapshotRow[]> {
  return db.select().from(publishedVersions).where(eq(publishedVersions.publishedId, publishedId)).orderBy(asc(publishedVersions.version));
}

/** The snapshots of several listings in one query, each listing's oldest first. */
export async function snapshotsOfMany(db: Database, publishedIds: string[]): Promise<Map<string, SnapshotRow[]>> {
  const out = new Map<string, SnapshotRow[]>();
  if (publishedIds.length === 0) return out;
  const rows = await db
    .select()
    .from(publishedVersions)
    .where(inArray(publishedVersions.publishedId, publishedIds))
    .orderBy(asc(publishedVersions.publishedId), asc(publishedVersions.version));
  for (const row of rows) out.set(row.publishedId, [...(out.get(row.publishedId) ?? []), row]);
  return out;
}

export interface ListingFilter {
  text?: string;
  category?: string;
  tag?: string;
  limit: number;
  offset: number;
}

export async function listListings(
  db: Database,
  filter: ListingFilter,
): Promise<{ rows: (PublishedRow & { publisherName: string })[]; total: number }> {
  const conditions: SQL[] = [];
  if (filter.text) {
    const pattern = `%${filter.text.replace(/[%_\\]/g, "\\$&")}%`;
    conditions.push(
      or(
        ilike(publishedEndpoints.title, pattern),
        ilike(publishedEndpoints.description, pattern),
        ilike(publishedEndpoints.publicStub, pattern),
        sql`${publishedEndpoints.tags}::text ilike ${pattern}`,
      )!,
    );
  }
  if (filter.category) conditions.push(sql`lower(${publishedEndpoints.category}) = lower(${filter.category})`);
  if (filter.tag) conditions.push(sql`${publishedEndpoints.tags} @> ${JSON.stringify([filter.tag.toLowerCase()])}::jsonb`);
  const where = conditions.length ? and(...conditions) : undefined;
  const rows = await db
    .select({ published: publishedEndpoints, publisherName: accounts.name })
    .from(publishedEndpoints)
    .innerJoin(accounts, eq(accounts.id, publishedEndpoints.ownerAccountId))
    .where(where)
    .orderBy(desc(publishedEndpoints.updatedAt), desc(publishedEndpoints.id))
    .limit(filter.limit)
    .offset(filter.offset);
  const [total] = await db.select({ n: count() }).from(publishedEndpoints).where(where);
  return { rows: rows.map((r) => ({ ...r.published, publisherName: r.publisherName })), total: Number(total?.n ?? 0) };
}

/** How many of a listing's most recent successful calls its typical price is the average of. */
export const PRICE_SAMPLE = 100;

/**
 * The tokens of each listing's most recent successful calls (at most PRICE_SAMPLE): how many, and their average.
 * One statement for a page of listings, each read through the usage records' publisher index (its owner, newest
 * first), so a listing called a million times costs no more than one called a hundred.
 */
export async function recentCallTokens(
  db: Database,
  listings: Pick<PublishedRow, "id" | "ownerAccountId">[],
): Promise<Map<string, { calls: number; averageTokens: number }>> {
  const out = new Map<string, { calls: number; averageTokens: number }>();
  if (listings.length === 0) return out;
  const wanted = JSON.stringify(listings.map((l) => ({ id: l.id, owner: l.ownerAccountId })));
  const result = await db.execute(sql`
    select l.id, count(r.tokens)::integer as calls, coalesce(avg(r.tokens), 0)::float8 as average_tokens
    from jsonb_to_recordset(${wanted}::jsonb) as l(id text, owner text)
    left join lateral (
      select u.tokens from usage_records u
      where u.publisher_account_id = l.owner and u.published_id = l.id and u.status < 400
      order by u.created_at desc
      limit ${PRICE_SAMPLE}
    ) r on true
    group by l.id`);
  for (const row of rowsOf(result)) out.set(String(row.id), { calls: Number(row.calls), averageTokens: Number(row.average_tokens) });
  return out;
}
