/**
 * The read grace through the whole app, against a page server on loopback
 * where one of a run's four pages answers slowly: once the others are in,
 * the run waits a grace for it, then answers without it and says so in
 * info.pages.cut. The cut read's fetch still lands in the page cache (it is
 * not stored as failed), so the next run has the page. With
 * SEARCH_READ_GRACE=false the run waits for the slow page as before.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { article } from "../helpers/peers/pages.ts";
import type { PeerHit } from "../helpers/peers/provider-peer.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";

const SLOW_PAGE_MS = 2_000;
const GRACE_MAX_MS = 300;

let world: SearchWorld;
beforeAll(() => {
  world = startSearchWorld();
});
afterAll(() => world.stop());

/** Four pages under a fresh path prefix (so none is cached), the second of them slow unless told; both providers list them. */
function freshPages(label: string, slow = true): { paths: string[]; slowUrl: string } {
  const prefix = `/grace/${label}-${crypto.randomUUID().slice(0, 8)}`;
  const hits: PeerHit[] = [];
  const paths: string[] = [];
  for (let i = 1; i <= 4; i++) {
    const path = `${prefix}/${i}.html`;
    world.site.put(
      path,
      article(`Lighthouse keeper log ${i}`, [`The lighthouse keeper logged storm number ${i} in the autumn of year ${1900 + i}.`]),
    );
    paths.push(path);
    hits.push({ title: `Lighthouse keeper log ${i}`, url: world.url("news.test", path), snippet: `Lighthouse storm ${i}.` });
  }
  if (slow) world.site.delay(paths[1]!, SLOW_PAGE_MS);
  world.searxng.setAnswers(() => hits);
  world.brave.setAnswers(() => hits);
  return { paths, slowUrl: hits[1]!.url };
}

async function appWith(
  env: Record<string, string>,
): Promise<{ app: TestApp; database: TestDatabase; search: () => ReturnType<typeof jsonOf> }> {
  const database = await freshDatabase();
  const app = await startTestApp(database, {
    env: world.env({ SEARCH_READ_PAGES: "4", SEARCH_HEDGING: "false", SEARCH_READ_GRACE_MAX_MS: String(GRACE_MAX_MS), ...env }),
    resolver: world.resolver,
  });
  const apiKey = (await app.account({ limit: 100_000 })).apiKey;
  const search = () =>
    jsonOf(
      app.fetch("/v1/search", {
        method: "POST",
        headers: { "X-API-Key": apiKey, "content-type": "application/json" },
        body: JSON.stringify({ prompt: "lighthouse keeper storms" }),
      }),
    );
  // A first run starts the extraction workers (seconds on a busy machine) and gives the instance its first read times.
  freshPages("warm", false);
  expect((await search()).info.pages.read).toBe(4);
  return { app, database, search };
}

describe("a slow page read is cut after its grace once the run's other reads are in", () => {
  let subject: Awaited<ReturnType<typeof appWith>>;
  beforeAll(async () => {
    subject = await appWith({});
  });
  afterAll(async () => {
    await subject.app.stop();
    await subject.database.drop();
  });

  test("the run answers without the slow page, well before it arrives, and info.pages.cut names it", async () => {
    const { paths, slowUrl } = freshPages("cut");
    const started = performance.now();
    const body = await subject.search();
    const elapsed = performance.now() - started;
    expect(elapsed).toBeLessThan(SLOW_PAGE_MS - 500);
    expect(body.info.pages.read).toBe(3);
    expect(body.info.pages.failed).toBe(0);
    expect(body.info.pages.errors).toEqual([]);
    expect(body.info.pages.cut).toHaveLength(1);
    const [cut] = body.info.pages.cut;
    expect(cut).toMatchObject({ url: slowUrl, reason: "straggler" });
    expect(cut.grace_ms).toBeLessThanOrEqual(GRACE_MAX_MS);
    expect(cut.waited_ms).toBeGreaterThanOrEqual(cut.grace_ms);
    // The slow page still counts, by its snippet.
    expect(body.context.some((c: { metadata: { url: string } }) => c.metadata.url === slowUrl)).toBe(true);
    expect(world.site.hits.get(paths[1]!)).toBe(1);
  });

  test("the cut read is not stored as failed: its page lands in the cache, and the next run reads it from there", async () => {
    const { paths } = freshPages("cache");
    expect((await subject.search()).info.pages.cut).toHaveLength(1);
    // The cut page's fetch goes on in the background; a run before it lands joins it (and may cut it again).
    let body = await subject.search();
    for (let i = 0; i < 40 && body.info.pages.from_cache < 4; i++) {
      await Bun.sleep(100);
      body = await subject.search();
    }
    expect(body.info.pages.from_cache).toBe(4);
    expect(body.info.pages.cut).toEqual([]);
    expect(paths.map((path) => world.site.hits.get(path))).toEqual([1, 1, 1, 1]);
  });
});

describe("SEARCH_READ_GRACE=false waits for every read", () => {
  let subject: Awaited<ReturnType<typeof appWith>>;
  beforeAll(async () => {
    subject = await appWith({ SEARCH_READ_GRACE: "false" });
  });
  afterAll(async () => {
    await subject.app.stop();
    await subject.database.drop();
  });

  test("the run waits for the slow page and reads it", async () => {
    freshPages("off");
    const started = performance.now();
    const body = await subject.search();
    expect(performance.now() - started).toBeGreaterThanOrEqual(SLOW_PAGE_MS);
    expect(body.info.pages.read).toBe(4);
    expect(body.info.pages.cut).toEqual([]);
  });
});
