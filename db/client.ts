/**
 * One database handle for both backends: embedded PGlite (the default, a
 * folder in DATA_DIR or memory for tests) and Postgres through postgres.js.
 * Everything above this file sees only `Database`, Drizzle's common Postgres
 * type, so the same queries run on both.
 */
import { stat } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema.ts";
import { type ClusterMade, createClusterInChild } from "./embedded-cluster.ts";
import { lockEmbeddedDatabase } from "./embedded-lock.ts";
import { PGLITE_OPTIONS } from "./pglite-options.ts";

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type DatabaseKind = "pglite" | "postgres";

/** The embedded instance itself (one connection, shared), or the URL a library opens its own pool with. */
export type DatabaseConnection = { kind: "pglite"; client: PGlite } | { kind: "postgres"; url: string };

export interface DatabaseHandle {
  readonly db: Database;
  readonly kind: DatabaseKind;
  /** A short description for logs: never the password. */
  readonly description: string;
  /** The connection behind it, for a library that speaks to the database itself (db/jobs.ts: pg-boss). */
  readonly connection: DatabaseConnection;
  ping(signal?: AbortSignal): Promise<void>;
  /**
   * Calls `onMessage` with the payload of every NOTIFY on `channel`, and
   * `onListening` each time the listener is (again) connected: what was sent
   * while it was away is lost, which only the caller can make up for.
   * Resolves to the function that stops listening.
   */
  listen(channel: string, onMessage: (payload: string) => void, onListening: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export type DatabaseTarget =
  | { kind: "postgres"; url: string; poolMax?: number }
  /** `created`: told when this open made the cluster (a first start). */
  | { kind: "pglite"; dataDir: string; role: string; created?: (made: ClusterMade) => void }
  /** `loadDataDir`: start from a dumped data directory (tests copy one migrated template instead of migrating each database). */
  | { kind: "pglite-memory"; loadDataDir?: Blob };

export async function openDatabase(target: DatabaseTarget): Promise<DatabaseHandle> {
  if (target.kind === "postgres") return openPostgres(target.url, target.poolMax ?? 10);
  if (target.kind === "pglite-memory") {
    const client = new PGlite({ ...PGLITE_OPTIONS, ...(target.loadDataDir ? { loadDataDir: target.loadDataDir } : {}) });
    await client.waitReady;
    return openPglite(client, "pglite (memory)", async () => {});
  }
  const lock = await lockEmbeddedDatabase(target.dataDir, target.role);
  try {
    const pgdata = `${target.dataDir}/pgdata`;
    // A first start: the cluster is made and migrated in a child process (db/embedded-cluster.ts says why).
    if (!(await isCluster(pgdata))) {
      const made = await createClusterInChild(pgdata);
      target.created?.(made);
    }
    const client = new PGlite(pgdata, PGLITE_OPTIONS);
    await client.waitReady;
    return openPglite(client, `pglite (${target.dataDir})`, () => lock.release());
  } catch (error) {
    await lock.release();
    throw error;
  }
}

async function isCluster(pgdata: string): Promise<boolean> {
  return stat(`${pgdata}/PG_VERSION`).then(
    () => true,
    () => false,
  );
}

function openPglite(client: PGlite, description: string, afterClose: () => Promise<void>): DatabaseHandle {
  const db = drizzlePglite({ client, schema }) as unknown as Database;
  return {
    db,
    kind: "pglite",
    description,
    connection: { kind: "pglite", client },
    async ping() {
      await client.query("select 1");
    },
    async listen(channel, onMessage, onListening) {
      // In-process: nothing can be missed, so it is listening from the start and for good.
      const stop = await client.listen(channel, onMessage);
      onListening();
      return stop;
    },
    async close() {
      if (!client.closed) await client.close();
      await afterClose();
    },
  };
}

export function describePostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `postgres (${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname})`;
  } catch {
    return "postgres";
  }
}

function openPostgres(url: string, poolMax: number): DatabaseHandle {
  const client = postgres(url, {
    max: poolMax,
    onnotice: () => {},
    connect_timeout: 10,
  });
  const db = drizzlePostgres({ client, schema }) as unknown as Database;
  return {
    db,
    kind: "postgres",
    description: describePostgresUrl(url),
    connection: { kind: "postgres", url },
    async ping(signal) {
      const query = client`select 1`;
      signal?.addEventListener("abort", () => query.cancel(), { once: true });
      await query;
    },
    async listen(channel, onMessage, onListening) {
      // postgres.js keeps a connection of its own for LISTEN and reconnects it; onlisten runs after each connect.
      const { unlisten } = await client.listen(channel, onMessage, onListening);
      return unlisten;
    },
    async close() {
      await client.end({ timeout: 5 });
    },
  };
}

/** A unique index refused the write (SQLSTATE 23505), from either driver, however Drizzle wraps it. */
export function isUniqueViolation(error: unknown): boolean {
  return hasSqlState(error, "23505");
}

/** A foreign key refused the write (SQLSTATE 23503): the row it points at is gone. */
export function isForeignKeyViolation(error: unknown): boolean {
  return hasSqlState(error, "23503");
}

function hasSqlState(error: unknown, state: string): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    if ((current as { code?: unknown }).code === state) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
