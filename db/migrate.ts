/**
 * Applies the drizzle-kit migrations in db/migrations. On Postgres several
 * instances may start at once (Fly's release command, rolling deploys), so
 * the run holds an advisory lock on a connection of its own. pg-boss's
 * schema (db/jobs.ts) is installed after the service's own tables.
 */
import { fileURLToPath } from "node:url";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import postgres from "postgres";
import type { DatabaseHandle } from "./client.ts";
import { migrateJobs } from "./jobs.ts";

export const migrationsFolder = fileURLToPath(new URL("./migrations", import.meta.url));

const MIGRATION_LOCK = 7_143_820_441; // any constant shared by every instance

/** `folder` is for tests that build a database as an earlier release left it. */
export async function migrateDatabase(handle: DatabaseHandle, postgresUrl?: string, folder = migrationsFolder): Promise<void> {
  if (handle.kind === "pglite") {
    await migratePglite(handle.db as unknown as PgliteDatabase, { migrationsFolder: folder });
    await migrateJobs(handle.connection);
    return;
  }
  if (!postgresUrl) throw new Error("migrating Postgres needs its URL");
  const client = postgres(postgresUrl, { max: 1, onnotice: () => {} });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await migratePostgres(drizzlePostgres({ client }), { migrationsFolder: folder });
    await migrateJobs(handle.connection);
    await client`select pg_advisory_unlock(${MIGRATION_LOCK})`;
  } finally {
    await client.end({ timeout: 5 });
  }
}
