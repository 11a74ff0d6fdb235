/** `npm run cli -- index`: bulk reading into the page cache and the local index, from URLs and a sitemap. */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../db/client.ts";
import { LocalIndex } from "../../src/contents/local-index.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { TEST_DATABASE_URL } from "../helpers/env.ts";
import { startPageSite } from "../helpers/peers/pages.ts";
import { runCli } from "../helpers/process.ts";

const site = startPageSite();
const dir = mkdtempSync(join(tmpdir(), "as-index-"));
let database: TestDatabase | undefined;
afterAll(async () => {
  site.stop();
  rmSync(dir, { recursive: true, force: true });
  await database?.drop();
});

test("indexes a sitemap and URLs with bounded concurrency, naming the failures", async () => {
  const env: Record<string, string> = { DATA_DIR: dir, FETCH_ALLOW_HOSTS: `127.0.0.1:${site.port}` };
  if (TEST_DATABASE_URL) {
    database = await freshDatabase();
    env.DATABASE_URL = database.url!;
  }
  const result = await runCli(
    ["index", `${site.url}/plain.txt`, "--sitemap", `${site.url}/sitemap.xml`, "--concurrency", "3", "--json"],
    env,
  );
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout)).toEqual({ total: 6, indexed: 5, cached: 0, failed: 1 });
  expect(result.stderr).toContain(`failed: ${site.url}/missing-page (fetch_status: the page answered with status 404)`);
  expect(result.stderr).toContain("6/6");

  const again = await runCli(["index", `${site.url}/article.html`, "--json"], env);
  expect(JSON.parse(again.stdout)).toMatchObject({ cached: 1, indexed: 0 });

  const handle = database?.handle ?? (await openDatabase({ kind: "pglite", dataDir: dir, role: "test" }));
  try {
    const hits = await new LocalIndex(handle.db).search("brotli compressed wire");
    expect(hits[0]?.url).toBe(`${site.url}/brotli.html`);
  } finally {
    if (!database) await handle.close();
  }
});
