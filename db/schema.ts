/**
 * The service's tables. Money is kept in micro-dollars (bigint) so credit and
 * earnings add up exactly; ids are prefixed, time-sortable strings (src/ids.ts),
 * except endpoint versions, whose ids are integers (SPEC 2.6).
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  customType,
  index,
  integer,
  json,
  jsonb,
  type AnyPgColumn,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

const createdAt = () => timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow();

export const accounts = pgTable(
  "accounts",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    balanceMicros: bigint("balance_micros", { mode: "number" }).notNull().default(0),
    /** Set only for enterprise accounts: their contracted calls per minute. */
    customRateLimit: integer("custom_rate_limit"),
    /** Dashboard sign-in (lowercased); null for accounts that only use keys. */
    email: text("email").unique(),
    /** argon2id (Bun.password); null until a password is set. */
    passwordHash: text("password_hash"),
    /** active, suspended or banned (accounts/status.ts); anything but active is refused on every route. */
    status: text("status").$type<AccountStatus>().notNull().default("active"),
    /** Why the account is not active: shown to its callers in the 403. */
    statusReason: text("status_reason"),
    statusChangedAt: timestamp("status_changed_at", { withTimezone: true, mode: "date" }),
    /**
     * Set when limit-evasion detection throttles the account (ABUSE_ACTION=throttle): every account
     * with the same value spends one shared bucket at the Free limit. Cleared by `accounts reinstate`.
     */
    sharedBucket: text("shared_bucket"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (table) => [check("accounts_status_check", sql`${table.status} in ('active', 'suspended', 'banned')`)],
);

export type AccountStatus = "active" | "suspended" | "banned";

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
    /** From this time on the key is refused like a revoked one: set on create, or by a rotation's grace period. */
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }),
    /** The key a rotation made to succeed this one. */
    replacedBy: text("replaced_by"),
  },
  (table) => [index("api_keys_account_idx").on(table.accountId)],
);

export const usageRecords = pgTable(
  "usage_records",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    /**
     * Whose call it was, and with which key. No foreign keys, unlike the other tables: a record is written for every
     * call, and checking two keys per row was half of what writing it cost on the embedded database (76 µs a row
     * with them, 30 without, PGlite, batches of 500). Accounts and keys are never deleted (they are suspended,
     * revoked), and a record is made only for a caller the service authenticated, so the keys could not fail.
     */
    accountId: text("account_id").notNull(),
    apiKeyId: text("api_key_id"),
    route: text("route").notNull(),
    status: smallint("status").notNull(),
    tokens: integer("tokens").notNull().default(0),
    /** What the call cost the caller, in micro-dollars (tokens at the configured price; 0 on the free plan). */
    costMicros: bigint("cost_micros", { mode: "number" }).notNull().default(0),
    /** For runs of a published endpoint: whose it is, and the publisher's share of the cost. */
    publisherAccountId: text("publisher_account_id"),
    publishedId: text("published_id"),
    /** For runs of one's own designed endpoint: the version that ran (no foreign key: records outlive deleted endpoints). */
    apiId: integer("api_id"),
    earningsMicros: bigint("earnings_micros", { mode: "number" }).notNull().default(0),
    requestId: text("request_id"),
    /**
     * The call's own id, made by the server (a request id may come from the client): writing a call's usage again
     * (a retried batch, a call recorded in its own path and then by a failure) writes nothing, and debits nothing.
     */
    eventId: text("event_id"),
    /**
     * How the caller signed in: "key" (an API key, or a task a key started) or "session" (the dashboard, or a task
     * its session started). Records written before it was kept read as key calls.
     */
    auth: text("auth").$type<"key" | "session">().notNull().default("key"),
    /**
     * Whether the call was a billable one (research): the usage view counts a session's billable calls as usage,
     * and leaves the dashboard's own browsing (its reads of keys, listings, balance) out by default.
     */
    billable: boolean("billable").notNull().default(false),
    /**
     * How long the call took, in milliseconds: from its authentication to its record (a stream's: to its end).
     * Null for records written before it was kept.
     */
    latencyMs: integer("latency_ms"),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex("usage_records_event_id_idx").on(table.eventId),
    index("usage_records_account_time_idx").on(table.accountId, sql`${table.createdAt} desc`),
    index("usage_records_publisher_time_idx")
      .on(table.publisherAccountId, sql`${table.createdAt} desc`)
      .where(sql`${table.publisherAccountId} is not null`),
  ],
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

/**
 * A designed endpoint's lineage: its owner and its stub (the path segment
 * of its URL). The versions are the records callers see; the lineage only
 * holds what all versions share.
 */
export const endpoints = pgTable(
  "endpoints",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    stub: text("stub").notNull().unique(),
    createdAt: createdAt(),
  },
  (table) => [index("endpoints_account_idx").on(table.accountId)],
);

/**
 * One version of an endpoint. `frozen_at` null is the draft (at most one
 * per lineage: a partial unique index); set, it is released and immutable
 * (a trigger refuses changes to its content). Its id is an integer from
 * one global sequence: Critique's wire contract makes `api_id` an integer.
 */
export const endpointVersions = pgTable(
  "endpoint_versions",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => endpoints.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    originalPrompt: text("original_prompt").notNull(),
    apiName: text("api_name").notNull(),
    // json, not jsonb: jsonb reorders object keys, and an owner's field order is part of the design.
    inputs: json("inputs").$type<unknown[]>().notNull(),
    outputFormat: json("output_format").$type<Record<string, unknown>>().notNull(),
    graph: json("graph").$type<Record<string, unknown>>().notNull(),
    versionNotes: text("version_notes"),
    frozenAt: timestamp("frozen_at", { withTimezone: true, mode: "date" }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex("endpoint_versions_number_idx").on(table.endpointId, table.version),
    uniqueIndex("endpoint_versions_one_draft_idx").on(table.endpointId).where(sql`${table.frozenAt} is null`),
    index("endpoint_versions_account_idx").on(table.accountId),
  ],
);

/** An endpoint on the marketplace, under a globally unique public stub. Outlives its source lineage. */
export const publishedEndpoints = pgTable(
  "published_endpoints",
  {
    id: text("id").primaryKey(),
    publicStub: text("public_stub").notNull().unique(),
    ownerAccountId: text("owner_account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** The lineage it was published from; no foreign key: deleting the lineage keeps the snapshots. */
    sourceEndpointId: text("source_endpoint_id"),
    title: text("title").notNull(),
    description: text("description").notNull(),
    category: text("category"),
    tags: jsonb("tags").$type<string[]>().notNull().default([]),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex("published_endpoints_source_idx").on(table.sourceEndpointId).where(sql`${table.sourceEndpointId} is not null`)],
);

/** An immutable snapshot of a released version (a trigger refuses updates). */
export const publishedVersions = pgTable(
  "published_versions",
  {
    id: text("id").primaryKey(),
    publishedId: text("published_id")
      .notNull()
      .references(() => publishedEndpoints.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    sourceVersion: integer("source_version").notNull(),
    apiName: text("api_name").notNull(),
    originalPrompt: text("original_prompt").notNull(),
    // json, not jsonb: jsonb reorders object keys, and an owner's field order is part of the design.
    inputs: json("inputs").$type<unknown[]>().notNull(),
    outputFormat: json("output_format").$type<Record<string, unknown>>().notNull(),
    graph: json("graph").$type<Record<string, unknown>>().notNull(),
    versionNotes: text("version_notes"),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex("published_versions_number_idx").on(table.publishedId, table.version)],
);

/** The published endpoints an account has chosen to use from its agents: each is one of its MCP tools. */
export const marketplaceSubscriptions = pgTable(
  "marketplace_subscriptions",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    publishedId: text("published_id")
      .notNull()
      .references(() => publishedEndpoints.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex("marketplace_subscriptions_pair_idx").on(table.accountId, table.publishedId)],
);

/**
 * Dashboard sessions. The cookie carries a random token; only its SHA-256
 * is stored. Each session has its own CSRF token, which every request that
 * uses the session must send back in a header.
 */
export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique(),
    csrfToken: text("csrf_token").notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (table) => [index("sessions_account_idx").on(table.accountId)],
);

/** Who changed an account's status, when and why: append-only, printed by `accounts show`. */
export const accountAudit = pgTable(
  "account_audit",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** suspend, reinstate, ban, throttle. */
    action: text("action").notNull(),
    reason: text("reason"),
    /** Who acted: `cli:<user>`, `abuse-detector`, … */
    actor: text("actor").notNull(),
    createdAt: createdAt(),
  },
  (table) => [index("account_audit_account_idx").on(table.accountId, table.createdAt)],
);

/**
 * One-time sign-in links (the first start's link for `local`): only the token's SHA-256 is stored;
 * a link works once, until it expires.
 */
export const signInLinks = pgTable(
  "sign_in_links",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [index("sign_in_links_account_idx").on(table.accountId)],
);

/**
 * Limit evasion detected across Free accounts (src/abuse/): the evidence, and what was done.
 * Client addresses appear only as keyed hashes; rows older than the retention setting are deleted.
 */
export const abuseFlags = pgTable(
  "abuse_flags",
  {
    id: text("id").primaryKey(),
    /** address: one client address; work: one fingerprint of the work, from any addresses. */
    kind: text("kind").notNull(),
    /** The keyed hash of the address, or the work's fingerprint. */
    subject: text("subject").notNull(),
    windowSeconds: integer("window_seconds").notNull(),
    calls: integer("calls").notNull(),
    /** [{account_id, calls}], the Free accounts seen. */
    accounts: jsonb("accounts").$type<{ account_id: string; calls: number }[]>().notNull(),
    /** Keyed hashes of the addresses seen, and the work fingerprints seen, with their counts. */
    evidence: jsonb("evidence").$type<Record<string, unknown>>().notNull(),
    /** report, throttle or suspend: what ABUSE_ACTION did. */
    action: text("action").notNull(),
    createdAt: createdAt(),
  },
  (table) => [index("abuse_flags_time_idx").on(table.createdAt)],
);

/** Secrets the instances of one deployment must share and nobody configured (the abuse address-hash key). */
export const serviceSecrets = pgTable("service_secrets", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
  createdAt: createdAt(),
});

/**
 * MCP sessions (src/mcp/) when the fleet has no Redis: any instance serves any of them. Ephemeral: a session
 * idle past its bound is deleted by the next one opened, its log with it.
 */
export const mcpSessions = pgTable(
  "mcp_sessions",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** The client's initialize params (JSON text): another instance initialises its server for the session with them. */
    init: text("init").notNull(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: createdAt(),
  },
  (table) => [index("mcp_sessions_account_idx").on(table.accountId, table.lastSeenAt), index("mcp_sessions_seen_idx").on(table.lastSeenAt)],
);

/** What a session's streams sent, for Last-Event-ID; each session keeps its newest within a count and a size. */
export const mcpSessionEvents = pgTable(
  "mcp_session_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    sessionId: text("session_id")
      .notNull()
      .references(() => mcpSessions.id, { onDelete: "cascade" }),
    streamId: text("stream_id").notNull(),
    /** The JSON-RPC message as sent (text, not jsonb: its keys keep their order). */
    message: text("message").notNull(),
  },
  (table) => [index("mcp_session_events_session_idx").on(table.sessionId, table.id)],
);

/**
 * Research started now and answered later (src/tasks/): a search's body or an endpoint's inputs, run off the
 * request path by whichever instance takes its job from the queue (pg-boss, in the `pgboss` schema), its answer
 * kept here until TASK_RETENTION_DAYS after it finished. Bodies and results are JSON text: their keys keep
 * their order (an output_format's fields, an answer's object).
 */
export const tasks = pgTable(
  "tasks",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** The key that created it (null for a dashboard session): on its usage record. */
    keyId: text("key_id"),
    /** queued, running, succeeded, failed or canceled (tasks/model.ts). */
    status: text("status").$type<"queued" | "running" | "succeeded" | "failed" | "canceled">().notNull(),
    /** search, endpoint or published: what `request` is the body of. */
    kind: text("kind").$type<"search" | "endpoint" | "published">().notNull(),
    /** The endpoint's stub or the listing's public stub; null for a search. */
    target: text("target"),
    /** The search's body, or the endpoint's inputs (JSON text). */
    request: text("request").notNull(),
    /** The caller's small JSON object, echoed back (JSON text). */
    metadata: text("metadata"),
    webhookUrl: text("webhook_url"),
    /** The Idempotency-Key it was created with, and a digest of the body it came with: a retry with another body is a 409. */
    idempotencyKey: text("idempotency_key"),
    requestDigest: text("request_digest"),
    /** `{response, context, info}` as the synchronous call answers it (JSON text), once it succeeded. */
    result: text("result"),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    /** How many times a worker began it: more than 1 after an instance died running it, or a transient refusal. */
    attempts: integer("attempts").notNull().default(0),
    /** The batch it is one input of, and its place there (batches' results come back in input order). */
    batchId: text("batch_id").references((): AnyPgColumn => batches.id, { onDelete: "cascade" }),
    batchIndex: integer("batch_index"),
    /** The monitor that started it: one run of the monitor's schedule. */
    monitorId: text("monitor_id").references((): AnyPgColumn => monitors.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    startedAt: timestamp("started_at", { withTimezone: true, mode: "date" }),
    finishedAt: timestamp("finished_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [
    index("tasks_account_idx").on(table.accountId, sql`${table.id} desc`),
    index("tasks_account_status_idx").on(table.accountId, table.status),
    uniqueIndex("tasks_idempotency_idx").on(table.accountId, table.idempotencyKey).where(sql`${table.idempotencyKey} is not null`),
    index("tasks_finished_idx").on(table.finishedAt).where(sql`${table.finishedAt} is not null`),
    check("tasks_status_check", sql`${table.status} in ('queued', 'running', 'succeeded', 'failed', 'canceled')`),
    index("tasks_batch_idx").on(table.batchId, table.batchIndex).where(sql`${table.batchId} is not null`),
    index("tasks_monitor_idx").on(table.monitorId, sql`${table.id} desc`).where(sql`${table.monitorId} is not null`),
  ],
);

/** What a task's event stream sent, in order (`seq` is its Last-Event-ID): status changes and its run's own events. */
export const taskEvents = pgTable(
  "task_events",
  {
    taskId: text("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    type: text("type").notNull(),
    /** The event's JSON text as the stream sends it. */
    data: text("data").notNull(),
  },
  (table) => [primaryKey({ columns: [table.taskId, table.seq] })],
);

/**
 * One endpoint called over many inputs (src/tasks/batches): each input is a task of the batch, in input order
 * (tasks.batch_index), run at the pace of the account's plan. Done once every task of it has finished.
 */
export const batches = pgTable(
  "batches",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    keyId: text("key_id"),
    /** running until every task has finished, then completed; canceled when its owner stopped it. */
    status: text("status").$type<"running" | "completed" | "canceled">().notNull(),
    /** endpoint or published, as a task's kind. */
    kind: text("kind").$type<"endpoint" | "published">().notNull(),
    target: text("target").notNull(),
    total: integer("total").notNull(),
    webhookUrl: text("webhook_url"),
    metadata: text("metadata"),
    idempotencyKey: text("idempotency_key"),
    requestDigest: text("request_digest"),
    createdAt: createdAt(),
    finishedAt: timestamp("finished_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [
    index("batches_account_idx").on(table.accountId, sql`${table.id} desc`),
    uniqueIndex("batches_idempotency_idx").on(table.accountId, table.idempotencyKey).where(sql`${table.idempotencyKey} is not null`),
    check("batches_status_check", sql`${table.status} in ('running', 'completed', 'canceled')`),
  ],
);

/**
 * A task body run on a schedule (src/tasks/monitors): each run is a task; its webhook hears `monitor.changed` when
 * the answer changed in substance from the last run's (`last_result`).
 */
export const monitors = pgTable(
  "monitors",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    keyId: text("key_id"),
    /** active or paused. */
    status: text("status").$type<"active" | "paused">().notNull(),
    kind: text("kind").$type<"search" | "endpoint" | "published">().notNull(),
    target: text("target"),
    /** The task body it runs: a search's body or an endpoint's inputs (JSON text, as tasks.request). */
    request: text("request").notNull(),
    /** `{"every_minutes": N}` or `{"cron": "..."}` (JSON text). */
    schedule: text("schedule").notNull(),
    webhookUrl: text("webhook_url").notNull(),
    metadata: text("metadata"),
    /** When its next run is due; a scheduler on any instance claims it (and moves it on) before starting the run. */
    nextRunAt: timestamp("next_run_at", { withTimezone: true, mode: "date" }).notNull(),
    /** The last run that succeeded, and its result (JSON text): what the next one is compared with. */
    lastTaskId: text("last_task_id"),
    lastResult: text("last_result"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (table) => [
    index("monitors_account_idx").on(table.accountId, sql`${table.id} desc`),
    index("monitors_due_idx").on(table.nextRunAt).where(sql`${table.status} = 'active'`),
    check("monitors_status_check", sql`${table.status} in ('active', 'paused')`),
  ],
);

/**
 * Each account's webhook signing secret (Standard Webhooks' `whsec_…`): its owner reads it to verify deliveries.
 * After a rotation the previous secret also signs until `previous_until`, so receivers can switch without a gap.
 */
export const webhookSecrets = pgTable("webhook_secrets", {
  accountId: text("account_id")
    .primaryKey()
    .references(() => accounts.id, { onDelete: "cascade" }),
  secret: text("secret").notNull(),
  previousSecret: text("previous_secret"),
  previousUntil: timestamp("previous_until", { withTimezone: true, mode: "date" }),
  createdAt: createdAt(),
  rotatedAt: timestamp("rotated_at", { withTimezone: true, mode: "date" }),
});

/** A webhook message to one URL (its id is the `webhook-id` header), tried until it is answered 2xx or 24 hours pass. */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** task.succeeded, task.failed, task.canceled, batch.completed, monitor.changed. */
    eventType: text("event_type").notNull(),
    url: text("url").notNull(),
    /** The body sent, as sent (JSON text). */
    payload: text("payload").notNull(),
    /** pending (being tried), delivered, or failed (24 hours of refusals). */
    status: text("status").$type<"pending" | "delivered" | "failed">().notNull(),
    attempts: integer("attempts").notNull().default(0),
    lastStatus: integer("last_status"),
    /** What went wrong on the last attempt, in our words (never the receiver's body). */
    lastError: text("last_error"),
    lastLatencyMs: integer("last_latency_ms"),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, mode: "date" }),
    /** No attempt after this: 24 hours after it was made, or after its owner asked for it again. */
    retryUntil: timestamp("retry_until", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: createdAt(),
    deliveredAt: timestamp("delivered_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [
    index("webhook_deliveries_account_idx").on(table.accountId, sql`${table.id} desc`),
    check("webhook_deliveries_status_check", sql`${table.status} in ('pending', 'delivered', 'failed')`),
  ],
);

/** Each attempt of a delivery: when, the receiver's status (null when it never answered), how long, and why it failed. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    n: integer("n").notNull(),
    at: timestamp("at", { withTimezone: true, mode: "date" }).notNull(),
    status: integer("status"),
    latencyMs: integer("latency_ms").notNull(),
    error: text("error"),
  },
  (table) => [primaryKey({ columns: [table.deliveryId, table.n] })],
);
