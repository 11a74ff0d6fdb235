/**
 * Migration 0006 on a database filled by the schema before it (string ids
 * like `api_01…`): every lineage, version and published snapshot is kept,
 * versions are numbered in creation order, the rules the database keeps
 * still hold, and the app serves the migrated rows by their integer ids.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { openDatabase, type DatabaseHandle } from "../../db/client.ts";
import { migrateDatabase, migrationsFolder } from "../../db/migrate.ts";
import { createKey } from "../../src/accounts/service.ts";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { TEST_DATABASE_URL } from "../helpers/env.ts";

const BEFORE = "0006_endpoint_version_integer_ids";

/** The migrations folder as the release before 0006 shipped it. */
function previousMigrations(): string {
  const folder = mkdtempSync(join(tmpdir(), "migrations-"));
  cpSync(migrationsFolder, folder, { recursive: true });
  const journalPath = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string; idx: number }[] };
  const cut = journal.entries.findIndex((e) => e.tag === BEFORE);
  expect(cut).toBeGreaterThan(0);
  for (const entry of journal.entries.slice(cut)) rmSync(join(folder, `${entry.tag}.sql`));
  journal.entries = journal.entries.slice(0, cut);
  writeFileSync(journalPath, JSON.stringify(journal));
  return folder;
}

let handle: DatabaseHandle;
let url: string | undefined;
let dropDatabase = async () => {};
let app: TestApp;

const rows = async <T>(query: ReturnType<typeof sql>): Promise<T[]> => {
  const result = (await handle.db.execute(query)) as unknown as { rows?: T[] } | T[];
  return Array.isArray(result) ? result : (result.rows ?? []);
};

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute)).toISOString();
const graph = JSON.stringify({
  nodes: [{ id: "search", type: "search_agent", name: "Search", system_prompt: "Find {landmark}" }],
  edges: [],
});
const inputs = JSON.stringify([{ name: "landmark", type: "string", required: true, default: null }]);

// Inserted out of creation order, so numbering by creation time is visible.
const VERSIONS = [
  { id: "api_01kf0000000000000000000003", endpoint: "ep_b", version: 1, created: at(3), frozen: null, name: "B one" },
  { id: "api_01kf0000000000000000000001", endpoint: "ep_a", version: 1, created: at(1), frozen: at(2), name: "A one" },
  { id: "api_01kf0000000000000000000002", endpoint: "ep_a", version: 2, created: at(2), frozen: null, name: "A two" },
];

beforeAll(async () => {
  if (TEST_DATABASE_URL) {
    const name = `as_migration_${process.pid}_${crypto.randomUUID().slice(0, 8)}`;
    const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database "${name}"`);
    await admin.end();
    const target = new URL(TEST_DATABASE_URL);
    target.pathname = `/${name}`;
    url = target.toString();
    handle = await openDatabase({ kind: "postgres", url, poolMax: 5 });
    dropDatabase = async () => {
      const cleaner = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
      await cleaner.unsafe(`drop database if exists "${name}" with (force)`);
      await cleaner.end();
    };
  } else {
    handle = await openDatabase({ kind: "pglite-memory" });
  }
  const previous = previousMigrations();
  await migrateDatabase(handle, url, previous);
  rmSync(previous, { recursive: true });

  await handle.db.execute(sql`insert into accounts (id, name) values ('acct_owner', 'owner'), ('acct_other', 'other')`);
  await handle.db.execute(
    sql`insert into endpoints (id, account_id, stub, created_at) values ('ep_a', 'acct_owner', 'landmark-a', ${at(1)}), ('ep_b', 'acct_owner', 'landmark-b', ${at(3)})`,
  );
  for (const v of VERSIONS) {
    await handle.db.execute(sql`insert into endpoint_versions (id, endpoint_id, account_id, version, original_prompt, api_name, inputs, output_format, graph, frozen_at, created_at, updated_at)
      values (${v.id}, ${v.endpoint}, 'acct_owner', ${v.version}, 'Facts about a landmark', ${v.name}, ${inputs}::json, '{"height": "number", "opened": "integer"}'::json, ${graph}::json, ${v.frozen}, ${v.created}, ${v.created})`);
  }
  await handle.db.execute(
    sql`insert into published_endpoints (id, public_stub, owner_account_id, source_endpoint_id, title, description) values ('pub_a', 'landmarks', 'acct_owner', 'ep_a', 'Landmarks', 'Facts')`,
  );
  await handle.db.execute(sql`insert into published_versions (id, published_id, version, source_version, api_name, original_prompt, inputs, output_format, graph)
    values ('pubv_a', 'pub_a', 1, 1, 'A one', 'Facts about a landmark', ${inputs}::json, '{"height": "number", "opened": "integer"}'::json, ${graph}::json)`);
  await handle.db.execute(
    sql`insert into usage_records (account_id, route, status, tokens) values ('acct_owner', 'POST /v1/search', 200, 42)`,
  );

  await migrateDatabase(handle, url);
  app = await startTestApp({ handle, url, drop: async () => {} });
});

afterAll(async () => {
  await app?.stop();
  await handle?.close();
  await dropDatabase();
});

describe("migration 0006 on a database filled by the previous schema", () => {
  test("versions are numbered 1..n in the order they were created, with everything else as it was", async () => {
    const migrated = await rows<{
      id: number;
      endpoint_id: string;
      version: number;
      api_name: string;
      frozen_at: unknown;
      output_format: unknown;
    }>(sql`select id, endpoint_id, version, api_name, frozen_at, output_format::text as output_format from endpoint_versions order by id`);
    expect(migrated.map((r) => [Number(r.id), r.endpoint_id, r.version, r.api_name, r.frozen_at !== null])).toEqual([
      [1, "ep_a", 1, "A one", true],
      [2, "ep_a", 2, "A two", false],
      [3, "ep_b", 1, "B one", false],
    ]);
    // json, not jsonb: the owner's field order survives.
    expect(migrated.every((r) => r.output_format === '{"height": "number", "opened": "integer"}')).toBe(true);
  });

  test("published snapshots, listings and usage records are untouched", async () => {
    expect(await rows(sql`select id, published_id, version, source_version, api_name from published_versions`)).toEqual([
      { id: "pubv_a", published_id: "pub_a", version: 1, source_version: 1, api_name: "A one" },
    ]);
    expect(await rows(sql`select public_stub, source_endpoint_id from published_endpoints`)).toEqual([
      { public_stub: "landmarks", source_endpoint_id: "ep_a" },
    ]);
    expect(await rows(sql`select route, tokens, api_id from usage_records`)).toEqual([
      { route: "POST /v1/search", tokens: 42, api_id: null },
    ]);
  });

  test("the database's rules still hold: released versions immutable, one draft per lineage, snapshots immutable", async () => {
    const refused = async (query: ReturnType<typeof sql>) =>
      handle.db.execute(query).then(
        () => "accepted",
        () => "refused",
      );
    expect(await refused(sql`update endpoint_versions set api_name = 'sneaky' where id = 1`)).toBe("refused");
    expect(
      await refused(sql`insert into endpoint_versions (endpoint_id, account_id, version, original_prompt, api_name, inputs, output_format, graph)
      values ('ep_a', 'acct_owner', 3, 'x', 'second draft', '[]'::json, '{}'::json, '{}'::json)`),
    ).toBe("refused");
    expect(await refused(sql`update published_versions set api_name = 'sneaky'`)).toBe("refused");
  });

  test("the app serves the migrated versions by integer id, and the next version takes the next id", async () => {
    const owner = await createKey(app.accounts, "acct_owner", "after migration");
    const other = await createKey(app.accounts, "acct_other", "stranger");
    const headers = { "X-API-Key": owner.secret, "content-type": "application/json" };
    const record = await jsonOf(app.fetch("/v1/design-api/2", { headers }));
    expect(record).toMatchObject({ id: 2, version: 2, state: "draft", api_name: "A two", stub: "landmark-a", live_version: 1 });
    expect(record.versions.map((v: { id: number; version: number }) => [v.id, v.version])).toEqual([
      [1, 1],
      [2, 2],
    ]);
    expect((await app.fetch("/v1/design-api/2", { headers: { "X-API-Key": other.secret } })).status).toBe(404);

    const next = await jsonOf(app.fetch("/v1/design-api/3/versions", { method: "POST", headers }));
    expect(next.response).toMatchObject({ version: 2, state: "draft", stub: "landmark-b" });
    // Past every migrated id (a refused insert above may have used one number of the sequence).
    expect(next.response.id).toBeGreaterThan(3);
    const market = await jsonOf(app.fetch("/v1/marketplace/landmarks", { headers }));
    expect(market.latest_version).toBe(1);
  });
});
