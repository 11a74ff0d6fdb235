/**
 * The page cache and the local index's storage. Pages are public web
 * content read on some caller's behalf and shared by every account, so
 * these queries take no owner: nothing here is private to an account.
 */
import { and, desc, eq, inArray, like, or, sql, type SQL } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { pages, passages } from "../../db/schema.ts";
import type { Passage } from "./passages.ts";

export type PageRow = typeof pages.$inferSelect;
export type NewPage = typeof pages.$inferInsert;

/**
 * What research reads of a stored page: what ranks its passages and cites it,
 * and what revalidates it. Not its HTML, plain text or links: a search never
 * uses them, and for a thousand concurrent searches they were most of what
 * reading the cache allocated.
 */
export type PageText = Pick<PageRow, "id" | "url" | "finalUrl" | "title" | "markdown" | "etag" | "lastModified" | "fetchedAt">;

type Lookup<T> = { execute(values: { url: string }): Promise<T[]> };

// Every page read looks its URL up first: the statements are built once per database, not per read.
const lookups = new WeakMap<Database, { full: Lookup<PageRow>; text: Lookup<PageText> }>();

function lookupsFor(db: Database) {
  let built = lookups.get(db);
  if (!built) {
    const byUrl = eq(pages.url, sql.placeholder("url"));
    built = {
      full: db.select().from(pages).where(byUrl).limit(1).prepare("find_page") as unknown as Lookup<PageRow>,
      text: db
        .select({
          id: pages.id,
          url: pages.url,
          finalUrl: pages.finalUrl,
          title: pages.title,
          markdown: pages.markdown,
          etag: pages.etag,
          lastModified: pages.lastModified,
          fetchedAt: pages.fetchedAt,
        })
        .from(pages)
        .where(byUrl)
        .limit(1)
        .prepare("find_page_text") as unknown as Lookup<PageText>,
    };
    lookups.set(db, built);
  }
  return built;
}

export async function findPage(db: Database, url: string): Promise<PageRow | null> {
  return (await lookupsFor(db).full.execute({ url }))[0] ?? null;
}

export async function findPageText(db: Database, url: string): Promise<PageText | null> {
  return (await lookupsFor(db).text.execute({ url }))[0] ?? null;
}

/** Stores a freshly read page and replaces its passages, in one transaction. */
export async function savePage(db: Database, page: NewPage, pieces: Passage[]): Promise<PageRow> {
  return db.transaction(async (tx) => {
    const { id: _id, url: _url, createdAt: _created, ...changes } = page;
    const [saved] = await tx.insert(pages).values(page).onConflictDoUpdate({ target: pages.url, set: changes }).returning();
    await tx.delete(passages).where(eq(passages.pageId, saved!.id));
    if (pieces.length) {
      // One statement and one JSON parameter for all passages: far cheaper to build and run than a
      // multi-row insert (Drizzle builds a parameter per value; arrays in sql`` become parameter lists).
      const rows = JSON.stringify(pieces.map((p) => ({ ordinal: p.ordinal, heading: p.heading, content: p.content })));
      await tx.execute(sql`insert into passages (page_id, ordinal, heading, content)
        select ${saved!.id}, r.ordinal, r.heading, r.content from json_to_recordset(${rows}::json) as r(ordinal int, heading text, content text)`);
    }
    return saved!;
  });
}

/** A 304: the stored content is still right; only the time and validators move. */
export async function revalidatePage(
  db: Database,
  id: string,
  at: Date,
  etag: string | null,
  lastModified: string | null,
): Promise<PageRow | null> {
  const rows = await db
    .update(pages)
    .set({ fetchedAt: at, ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) })
    .where(eq(pages.id, id))
    .returning();
  return rows[0] ?? null;
}

export interface PassageHit {
  pageId: string;
  url: string;
  finalUrl: string;
  title: string | null;
  siteName: string | null;
  publishedAt: Date | null;
  heading: string | null;
  content: string;
  ordinal: number;
  rank: number;
}

/** Host and URL-prefix conditions, already normalised by the caller. */
export interface SourceScope {
  hosts: string[];
  prefixes: string[];
}

function scopeCondition(scope: SourceScope): SQL | undefined {
  const conditions: SQL[] = [];
  if (scope.hosts.length) {
    conditions.push(inArray(pages.host, scope.hosts));
    for (const host of scope.hosts) conditions.push(like(pages.host, `%.${host.replace(/[%_\\]/g, "\\$&")}`));
  }
  for (const prefix of scope.prefixes) conditions.push(like(pages.finalUrl, `${prefix.replace(/[%_\\]/g, "\\$&")}%`));
  return conditions.length ? or(...conditions) : undefined;
}

export async function searchPassages(
  db: Database,
  tsquery: string,
  options: { scope?: SourceScope; limit: number },
): Promise<PassageHit[]> {
  const query = sql`to_tsquery('simple', ${tsquery})`;
  const rank = sql<number>`ts_rank_cd(${passages.search}, ${query}, 1)`;
  const where = and(sql`${passages.search} @@ ${query}`, options.scope ? scopeCondition(options.scope) : undefined);
  const rows = await db
    .select({
      pageId: pages.id,
      url: pages.url,
      finalUrl: pages.finalUrl,
      title: pages.title,
      siteName: pages.siteName,
      publishedAt: pages.publishedAt,
      heading: passages.heading,
      content: passages.content,
      ordinal: passages.ordinal,
      rank,
    })
    .from(passages)
    .innerJoin(pages, eq(passages.pageId, pages.id))
    .where(where)
    .orderBy(desc(rank))
    .limit(options.limit);
  return rows.map((r) => ({ ...r, rank: Number(r.rank) }));
}
