/**
 * The service's tables. Money is kept in micro-dollars (bigint) so credit and
 * earnings add up exactly; ids are prefixed, time-sortable strings (src/ids.ts).
 */
import { sql } from "drizzle-orm";
import { bigint, index, integer, pgTable, smallint, text, timestamp } from "drizzle-orm/pg-core";

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
