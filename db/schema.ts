/**
 * The service's tables. Money is kept in micro-dollars (bigint) so credit and
 * earnings add up exactly; ids are prefixed, time-sortable strings (src/ids.ts).
 */
import { sql } from "drizzle-orm";
import { bigint, customType, index, integer, jsonb, pgTable, smallint, text, timestamp } from "drizzle-orm/pg-core";

const createdAt = () => timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow();

export const accounts = pgTable("accounts", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  balanceMicros: bigint("balance_micros", { mode: "number" }).notNull().default(0),
  /** Set only for enterprise accounts: their contracted calls per minute. */
  customRateLimit: integer("custom_rate_limit"),
  createdAt: createdAt(),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    name: text("name"),
    /** The readable start of the key (`sk_live_` and 8 more characters): shown in lists, used for lookup. */
    prefix: text("prefix").notNull().unique(),
    /** SHA-256 of the whole key, hex. The key itself is never stored. */
    hash: text("hash").notNull().unique(),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [index("api_keys_account_idx").on(table.accountId)],
);

export const usageRecords = pgTable(
  "usage_records",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    apiKeyId: text("api_key_id").references(() => apiKeys.id, { onDelete: "set null" }),
    route: text("route").notNull(),
    status: smallint("status").notNull(),
    tokens: integer("tokens").notNull().default(0),
    requestId: text("request_id"),
    createdAt: createdAt(),
  },
  (table) => [index("usage_records_account_time_idx").on(table.accountId, sql`${table.createdAt} desc`)],
);

const tsvector = customType<{ data: string }>({
  dataType: () => "tsvector",
});

/**
 * Every page the service has read: the page cache (reused within
 * max_age_seconds, revalidated with ETag/Last-Modified) and the documents
 * of the local index. Pages are public web content, shared by all accounts.
 */
export const pages = pgTable(
  "pages",
  {
    id: text("id").primaryKey(),
    /** The requested URL, normalised (no fragment): the cache key. */
    url: text("url").notNull().unique(),
    finalUrl: text("final_url").notNull(),
    /** Host of the final URL, lowercase: what domain filters match. */
    host: text("host").notNull(),
    contentType: text("content_type").notNull(),
    title: text("title"),
    byline: text("byline"),
    siteName: text("site_name"),
    publishedAt: timestamp("published_at", { withTimezone: true, mode: "date" }),
    language: text("language"),
    html: text("html").notNull(),
    markdown: text("markdown").notNull(),
    text: text("text").notNull(),
    links: jsonb("links").$type<string[]>().notNull().default([]),
    wordCount: integer("word_count").notNull(),
    tokenCount: integer("token_count").notNull(),
    etag: text("etag"),
    lastModified: text("last_modified"),
    fetchedAt: timestamp("fetched_at", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: createdAt(),
  },
  (table) => [index("pages_host_idx").on(table.host)],
);

/** A page cut into passages, each searchable by Postgres full-text search ('simple': every language alike). */
export const passages = pgTable(
  "passages",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    pageId: text("page_id")
      .notNull()
      .references(() => pages.id, { onDelete: "cascade" }),
    ordinal: integer("ordinal").notNull(),
    heading: text("heading"),
    content: text("content").notNull(),
    search: tsvector("search")
      .notNull()
      .generatedAlwaysAs(sql`setweight(to_tsvector('simple', coalesce(heading, '')), 'A') || to_tsvector('simple', content)`),
  },
  (table) => [index("passages_page_idx").on(table.pageId, table.ordinal), index("passages_search_idx").using("gin", table.search)],
);
