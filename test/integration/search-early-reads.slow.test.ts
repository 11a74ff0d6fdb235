/**
 * Early reads: pages from a provider that has answered start reading while
 * a slower provider is still working, the domain lists hold for them too,
 * and they are bounded. SearXNG answers at once; Brave takes 1.5 s.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { article } from "../helpers/peers/pages.ts";
import type { PeerHit } from "../helpers/peers/provider-peer.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";

const SLOW_PROVIDER_MS = 1_500;

let world: SearchWorld;
beforeAll(() => {
  world = startSearchWorld();
  world.brave.setLatency(SLOW_PROVIDER_MS);
});
afterAll(() => world.stop());

/** Six pages under a fresh path prefix, so no earlier read of them is cached. */
function freshPages(label: string): { path: string; hit: PeerHit }[] {
  const prefix = `/early/${label}-${crypto.randomUUID().slice(0, 8)}`;
  return Array.from({ length: 6 }, (_, i) => {
    const path = `${prefix}/${i + 1}.html`;
    const host = i === 0 ? "spam.test" : "news.test";
    world.site.put(
      path,
      article(`Harbour crane report ${i + 1}`, [
        `The harbour crane number ${i + 1} was repaired in week ${i + 10}, the port authority said in a statement.`,
      ]),
    );
    return { path, hit: { title: `Harbour crane report ${i + 1}`, url: world.url(host, path), snippet: `Harbour crane ${i + 1}.` } };
  });
}

const hitsOf = (path: string) => world.site.hits.get(path) ?? 0;

for (const early of [true, false]) {
  describe(`SEARCH_EARLY_READS=${early}`, () => {
    let database: TestDatabase;
    let app: TestApp;
    let apiKey: string;
    beforeAll(async () => {
      database = await freshDatabase();
      app = await startTestApp(database, {
        env: world.env({ SEARCH_EARLY_READS: String(early), SEARCH_HEDGING: "false", PROVIDER_TIMEOUT_MS: "5000" }),
        resolver: world.resolver,
      });
      apiKey = (await app.account({ limit: 100_000 })).apiKey;
    });
    afterAll(async () => {
      await app.stop();
      await database.drop();
    });
    const search = (body: unknown) =>
      app.fetch("/v1/search", {
        method: "POST",
        headers: { "X-API-Key": apiKey, "content-type": "application/json" },
        body: JSON.stringify(body),
      });

    test(
      early
        ? "the fast provider's pages are requested while the slow one is still answering"
        : "no page is requested before every provider has answered",
      async () => {
        const pages = freshPages("timing");
        world.searxng.setAnswers(() => pages.slice(1, 3).map((p) => p.hit));
        world.brave.setAnswers(() =>
          pages
            .slice(1, 3)
            .map((p) => p.hit)
            .reverse(),
        );
        const started = performance.now();
        const pending = jsonOf(search({ prompt: "harbour crane repairs" }));
        // Brave cannot answer before SLOW_PROVIDER_MS; look well before that.
        while (performance.now() - started < SLOW_PROVIDER_MS - 500 && hitsOf(pages[1]!.path) === 0) await Bun.sleep(10);
        const requestedEarly = hitsOf(pages[1]!.path) > 0;
        const body = await pending;
        expect(requestedEarly).toBe(early);
        expect(performance.now() - started).toBeGreaterThanOrEqual(SLOW_PROVIDER_MS);
        // Either way each page was fetched once, and the answer used both.
        expect(hitsOf(pages[1]!.path)).toBe(1);
        expect(hitsOf(pages[2]!.path)).toBe(1);
        expect(body.info.pages.read).toBe(2);
        expect(body.response).toContain("harbour crane");
      },
    );

    test("a blacklisted host is never fetched, early or late", async () => {
      const pages = freshPages("blacklist");
      world.searxng.setAnswers(() => pages.slice(0, 3).map((p) => p.hit));
      world.brave.setAnswers(() => pages.slice(0, 3).map((p) => p.hit));
      const body = await jsonOf(search({ prompt: "harbour crane repairs", source_blacklist: ["spam.test"] }));
      expect(hitsOf(pages[0]!.path)).toBe(0);
      expect(body.context.some((c: { metadata: { url: string } }) => c.metadata.url.includes("spam.test"))).toBe(false);
      expect(body.info.pages.read).toBe(2);
    });
  });
}

describe("bounds", () => {
  let database: TestDatabase;
  let app: TestApp;
  let apiKey: string;
  beforeAll(async () => {
    database = await freshDatabase();
    app = await startTestApp(database, {
      // The quorum would go on without Brave once SearXNG's list covers the two pages: here Brave's list is awaited.
      env: world.env({ SEARCH_READ_PAGES: "2", SEARCH_HEDGING: "false", SEARCH_QUORUM: "false", PROVIDER_TIMEOUT_MS: "5000" }),
      resolver: world.resolver,
    });
    apiKey = (await app.account({ limit: 100_000 })).apiKey;
  });
  afterAll(async () => {
    await app.stop();
    await database.drop();
  });

  test("each list starts at most SEARCH_READ_PAGES reads, and the run uses SEARCH_READ_PAGES pages", async () => {
    const pages = freshPages("bounds").slice(1);
    world.searxng.setAnswers(() => pages.map((p) => p.hit));
    world.brave.setAnswers(() => [...pages].reverse().map((p) => p.hit));
    const body = await jsonOf(
      app.fetch("/v1/search", {
        method: "POST",
        headers: { "X-API-Key": apiKey, "content-type": "application/json" },
        body: JSON.stringify({ prompt: "harbour crane repairs" }),
      }),
    );
    expect(body.info.pages.read + body.info.pages.from_cache).toBe(2);
    // A read the merge did not choose may still be on its way to the site: give it a moment.
    for (let i = 0; i < 100 && pages.reduce((n, p) => n + hitsOf(p.path), 0) < 4; i++) await Bun.sleep(10);
    // The top two of SearXNG's list, read early; Brave's top two once it answered; nothing below.
    expect(pages.map((p) => hitsOf(p.path))).toEqual([1, 1, 0, 1, 1]);
  });
});

describe("with the quorum (the default), a slow provider is not waited for once the fast one's list covers the pages read", () => {
  let database: TestDatabase;
  let app: TestApp;
  let apiKey: string;
  beforeAll(async () => {
    database = await freshDatabase();
    app = await startTestApp(database, {
      // A provider not heard from yet gets the longest grace: here shorter than Brave's latency.
      env: world.env({ SEARCH_READ_PAGES: "2", SEARCH_HEDGING: "false", SEARCH_GRACE_MAX_MS: "300", PROVIDER_TIMEOUT_MS: "5000" }),
      resolver: world.resolver,
    });
    apiKey = (await app.account({ limit: 100_000 })).apiKey;
  });
  afterAll(async () => {
    await app.stop();
    await database.drop();
  });

  test("the run answers from the fast provider's pages, read early, and reports the slow call as cut", async () => {
    const pages = freshPages("quorum").slice(1);
    world.searxng.setAnswers(() => pages.map((p) => p.hit));
    world.brave.setAnswers(() => [...pages].reverse().map((p) => p.hit));
    const started = performance.now();
    const body = await jsonOf(
      app.fetch("/v1/search", {
        method: "POST",
        headers: { "X-API-Key": apiKey, "content-type": "application/json" },
        body: JSON.stringify({ prompt: "harbour crane repairs" }),
      }),
    );
    expect(performance.now() - started).toBeLessThan(SLOW_PROVIDER_MS);
    expect(body.info.pages.read + body.info.pages.from_cache).toBe(2);
    expect(body.response).toContain("harbour crane");
    const brave = body.info.providers.find((p: { name: string }) => p.name === "brave");
    expect(brave.cut.length).toBe(brave.calls);
    expect(brave.cut[0]).toMatchObject({ reason: "straggler" });
    expect(brave.succeeded).toBe(0);
    // SearXNG's top two, read early; nothing of Brave's list, which never came.
    expect(pages.map((p) => hitsOf(p.path))).toEqual([1, 1, 0, 0, 0]);
  });
});
