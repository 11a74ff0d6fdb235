/**
 * One database handle for both backends: embedded PGlite (the default, a
 * folder in DATA_DIR or memory for tests) and Postgres through postgres.js.
 * Everything above this file sees only `Database`, Drizzle's common Postgres
 * type, so the same queries run on both.
 */
import { rename, rm, rmdir, stat } from "node:fs/promises";
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema.ts";
import { lockEmbeddedDatabase } from "./embedded-lock.ts";

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type DatabaseKind = "pglite" | "postgres";

export interface DatabaseHandle {
  readonly db: Database;
  readonly kind: DatabaseKind;
  /** A short description for logs: never the password. */
  readonly description: string;
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
  | { kind: "pglite"; dataDir: string; role: string }
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
    if (!(await isCluster(pgdata))) await createCluster(pgdata);
    const client = new PGlite(pgdata, PGLITE_OPTIONS);
    await client.waitReady;
    return openPglite(client, `pglite (${target.dataDir})`, () => lock.release());
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/**
 * PGlite's Postgres gets 16 MB of shared buffers instead of the stock 128 MB, which are all resident
 * from the start (measured: an open instance holds 135 MB instead of 260). A small database's hot pages
 * fit, and the rest stay in the operating system's page cache, a read away, as they do for a server
 * Postgres. Given on the start line, so folders made before this setting get it too. initdb writes
 * 1 MB WAL segments instead of 16: PGlite holds a new cluster in memory more than once while making it,
 * and the smaller one takes some 140 MB off that peak.
 */
const SETTINGS = ["-c", "shared_buffers=16MB"];
const PGLITE_OPTIONS: PGliteOptions = {
  startParams: [...PGlite.defaultStartParams, ...SETTINGS],
  initDbStartParams: ["--wal-segsize=1", ...SETTINGS],
};

async function isCluster(pgdata: string): Promise<boolean> {
  return stat(`${pgdata}/PG_VERSION`).then(
    () => true,
    () => false,
  );
}

/**
 * A new cluster for an empty folder. PGlite's own initdb on a folder keeps two Postgres instances, a
 * snapshot of one's heap and a tar of the new cluster alive at once; in memory, initdb writes straight
 * into the instance's files (no tar), and the scratch instance is closed and collected before the
 * cluster is written to disk (measured: a peak of 630 MB instead of 720 with the settings above, 1 GB
 * without them). Written beside the folder and renamed into place, so an interrupted first start
 * leaves no half-made cluster behind.
 */
async function createCluster(pgdata: string): Promise<void> {
  await rmdir(pgdata).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return;
    if (error.code === "ENOTEMPTY") throw new Error(`${pgdata} holds files but no database (no PG_VERSION); move it away to start afresh`);
    throw error;
  });
  const scratch = new PGlite(PGLITE_OPTIONS);
  await scratch.waitReady;
  collectClosedInstances(); // PGlite's own initdb instance, closed by now, before the tar is made
  const cluster = await scratch.dumpDataDir("none");
  await scratch.close();
  collectClosedInstances();
  const staging = `${pgdata}.new`;
  await rm(staging, { recursive: true, force: true });
  const writer = new PGlite(staging, { ...PGLITE_OPTIONS, loadDataDir: cluster });
  await writer.waitReady;
  await writer.close();
  await rename(staging, pgdata);
  collectClosedInstances();
}

/**
 * A closed PGlite's WASM heap (128 MB or more) is returned only when the garbage collector finalizes it:
 * the first full collection finds the instance unreachable, the second releases its memory (measured:
 * after one, some 300 MB are still resident).
 */
function collectClosedInstances(): void {
  Bun.gc(true);
  Bun.gc(true);
}

function openPglite(client: PGlite, description: string, afterClose: () => Promise<void>): DatabaseHandle {
  const db = drizzlePglite({ client, schema }) as unknown as Database;
  return {
    db,
    kind: "pglite",
    description,
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
