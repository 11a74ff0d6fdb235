/**
 * The job queue's store: pg-boss, in a schema of its own (`pgboss`) in the
 * service's database, so tasks need no store the service does not already
 * have. On the embedded database it shares the one PGlite connection
 * (pg-boss's own adapter); on Postgres it opens a small pool of its own
 * (node-postgres, which pg-boss brings), since it holds connections for its
 * polling and LISTEN that postgres.js's pool should not lend out.
 *
 * Its schema is installed as part of migrating (db/migrate.ts, the embedded
 * first start's child, the tests' templates): pg-boss makes some twenty
 * tables and functions, 2.8 s on PGlite and 0.15 s on Postgres, which a
 * server would otherwise pay at every start on a new database.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { PgBoss, fromPglite, type ConstructorOptions } from "pg-boss";
import type { DatabaseConnection } from "./client.ts";

export const JOBS_SCHEMA = "pgboss";

/** Where pg-boss keeps its jobs: the PGlite instance itself, or a pool of `poolMax` on the Postgres URL. */
export function jobStore(connection: DatabaseConnection, poolMax: number): ConstructorOptions {
  return connection.kind === "pglite"
    ? { db: fromPglite(connection.client), backend: "pglite", schema: JOBS_SCHEMA }
    : { connectionString: connection.url, max: poolMax, schema: JOBS_SCHEMA, application_name: "agentic-search jobs" };
}

/** Installs or upgrades pg-boss's schema, and nothing else: no maintenance, no schedules, no instance row. */
export async function migrateJobs(connection: DatabaseConnection): Promise<void> {
  const boss = new PgBoss({ ...jobStore(connection, 1), migrate: true, supervise: false, schedule: false, registerInstance: false });
  let failure: unknown;
  boss.on("error", (error) => (failure ??= error));
  await boss.start();
  await boss.stop({ graceful: false });
  if (failure) throw failure;
}

/** The installed pg-boss's version: what a migrated database's jobs schema depends on (the tests' templates are named after it). */
export function jobsLibraryVersion(): string {
  const manifest = fileURLToPath(new URL("../package.json", import.meta.resolve("pg-boss")));
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}
