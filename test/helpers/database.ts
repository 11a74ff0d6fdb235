/**
 * A fresh, migrated database per caller. On Postgres: a new database cloned
 * from a migrated template (fast, and runs never collide); on PGlite: a new
 * in-memory instance loaded from a migrated data directory built once per
 * process from the shipped cluster template (initdb, about 3 s and 600 MB,
 * when the template does not fit; loading the migrated copy takes a tenth).
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import postgres from "postgres";
import { type DatabaseHandle, openDatabase } from "../../db/client.ts";
import { readTemplate } from "../../db/cluster-template.ts";
import { jobsLibraryVersion } from "../../db/jobs.ts";
import { migrateDatabase, migrationsFolder } from "../../db/migrate.ts";
import { TEST_DATABASE_URL } from "./env.ts";

export interface TestDatabase {
  handle: DatabaseHandle;
  /** Set on Postgres: other processes (the CLI, a second app) can connect to it. */
  url: string | undefined;
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

function migrationsDigest(): string {
  const hash = createHash("sha256");
  for (const file of readdirSync(migrationsFolder)
    .filter((f) => f.endsWith(".sql"))
    .sort())
    hash.update(readFileSync(join(migrationsFolder, file)));
  // pg-boss installs its own schema as part of migrating: another version of it is another template.
  hash.update(jobsLibraryVersion());
  return hash.digest("hex").slice(0, 12);
}

let template: Promise<string> | undefined;

async function ensureTemplate(adminUrl: string): Promise<string> {
  const name = `as_template_${migrationsDigest()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const [exists] = await admin`select 1 from pg_database where datname = ${name}`;
    if (!exists) {
      const building = `${name}_${process.pid}`;
      await admin.unsafe(`create database "${building}"`);
      const handle = await openDatabase({ kind: "postgres", url: withDatabase(adminUrl, building), poolMax: 1 });
      await migrateDatabase(handle, withDatabase(adminUrl, building));
      await handle.close();
      // Renamed only once complete, so a half-built template is never cloned.
      await admin.unsafe(`alter database "${building}" rename to "${name}"`).catch(async () => {
        await admin.unsafe(`drop database if exists "${building}"`);
      });
    }
  } finally {
    await admin.end();
  }
  return name;
}

let pgliteTemplate: Promise<Blob> | undefined;

/**
 * The data directory of a migrated in-memory PGlite, uncompressed (loading skips the gunzip). Started from the
 * shipped cluster template when it fits (no initdb: some 3 s and 300 MB of peak less), else from initdb.
 */
async function buildPgliteTemplate(): Promise<Blob> {
  const cluster = await readTemplate();
  const handle = await openDatabase({ kind: "pglite-memory", ...(cluster ? { loadDataDir: cluster } : {}) });
  try {
    await migrateDatabase(handle);
    return await (handle.db as unknown as { $client: PGlite }).$client.dumpDataDir("none");
  } finally {
    await handle.close();
  }
}

export async function freshDatabase(): Promise<TestDatabase> {
  if (!TEST_DATABASE_URL) {
    pgliteTemplate ??= buildPgliteTemplate();
    const handle = await openDatabase({ kind: "pglite-memory", loadDataDir: await pgliteTemplate });
    return { handle, url: undefined, drop: () => handle.close() };
  }
  template ??= ensureTemplate(TEST_DATABASE_URL);
  const source = await template;
  const name = `as_test_${process.pid}_${crypto.randomUUID().slice(0, 8)}`;
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}" template "${source}"`);
  await admin.end();
  const url = withDatabase(TEST_DATABASE_URL, name);
  const handle = await openDatabase({ kind: "postgres", url, poolMax: 5 });
  return {
    handle,
    url,
    async drop() {
      await handle.close();
      const cleaner = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
      await cleaner.unsafe(`drop database if exists "${name}" with (force)`);
      await cleaner.end();
    },
  };
}
