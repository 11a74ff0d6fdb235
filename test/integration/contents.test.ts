/**
 * POST /v1/contents against a web site on loopback (allowed through
 * FETCH_ALLOW_HOSTS), read through the real SafeFetch, extractor, page cache
 * and local index.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { ManualClock } from "../../src/clock.ts";
import { LocalIndex } from "../../src/contents/local-index.ts";
import { findPageText } from "../../src/contents/queries.ts";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { startCanary, startPageSite, type PageSite } from "../helpers/peers/pages.ts";

let database: TestDatabase;
let app: TestApp;
let site: PageSite;
let apiKey: string;
const clock = new ManualClock(Date.now());
const canary = startCanary();

beforeAll(async () => {
  site = startPageSite();
  database = await freshDatabase();
  app = await startTestApp(database, {
    clock,
    env: { FETCH_ALLOW_HOSTS: `127.0.0.1:${site.port}`, FETCH_TIMEOUT_MS: "1500", FETCH_FIRST_BYTE_MS: "1000", FETCH_MAX_BYTES: "1000000" },
  });
  apiKey = (await app.account({ limit: 100_000 })).apiKey;
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  site.stop();
  canary.stop();
});

const contents = (body: Record<string, unknown>) =>
  app.fetch("/v1/contents", {
    method: "POST",
    headers: { "X-API-Key": apiKey, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

async function expectFailure(url: string, status: number, error: string) {
  const started = performance.now();
  const response = await contents({ url, max_age_seconds: 0 });
  expect({ url, status: response.status, error: (await jsonOf(response)).error }).toEqual({ url, status, error });
  return performance.now() - started;
}

describe("an article page", () => {
  test("comes back as its main content in markdown, with metadata, absolute links and counts", async () => {
    const response = await contents({ url: `${site.url}/article.html` });
    expect(response.status).toBe(200);
    const body = await jsonOf(response);
    expect(body).toMatchObject({
      url: `${site.url}/article.html`,
      final_url: `${site.url}/article.html`,
      title: "Council approves the river bridge",
      byline: "Jane Reporter",
      site_name: "Loopback News",
      published_at: "2026-03-04T10:00:00.000Z",
      language: "en",
      content_type: "text/html",
      cached: false,
      truncated: false,
    });
    expect(body.content).toContain("The city council approved the new river bridge on Tuesday");
    expect(body.content).toContain("protected cycle path");
    for (const boilerplate of ["Sign in", "Accept all cookies", "All rights reserved", "Unrelated story one"])
      expect(body.content).not.toContain(boilerplate);
    expect(body.links).toContain(`${site.url}/sources/report.html`);
    expect(body.links).toContain("https://example.org/data");
    expect(body.content).toContain(`(${site.url}/sources/report.html)`);
    expect(body.word_count).toBeGreaterThan(40);
    expect(body.token_count).toBeGreaterThan(40);
    expect(Date.parse(body.fetched_at)).toBeGreaterThan(0);
  });

  test("is served from the cache the second time, in every format, and cut by max_characters", async () => {
    const hitsBefore = site.hits.get("/article.html") ?? 0;
    const text = await jsonOf(contents({ url: `${site.url}/article.html`, format: "text" }));
    expect(text.cached).toBe(true);
    expect(text.content).not.toContain("](");
    expect(text.content).toContain("The city council approved");
    const html = await jsonOf(contents({ url: `${site.url}/article.html`, format: "html" }));
    expect(html.content).toMatch(/<p>The city council approved/);
    expect(html.content).not.toMatch(/<script|<nav|<footer/i);
    const cut = await jsonOf(contents({ url: `${site.url}/article.html`, format: "text", max_characters: 40 }));
    expect(cut.content.length).toBeLessThanOrEqual(40);
    expect(cut.truncated).toBe(true);
    expect(site.hits.get("/article.html") ?? 0).toBe(hitsBefore);
  });

  test("max_age_seconds 0 forces a fresh fetch", async () => {
    const before = site.hits.get("/article.html") ?? 0;
    const body = await jsonOf(contents({ url: `${site.url}/article.html`, max_age_seconds: 0 }));
    expect(body.cached).toBe(false);
    expect(site.hits.get("/article.html")).toBe(before + 1);
  });

  test("is sent a descriptive User-Agent", async () => {
    const body = await jsonOf(contents({ url: `${site.url}/user-agent` }));
    expect(body.content).toContain("AgenticSearchBot/");
  });
});

describe("transport", () => {
  test("a redirect chain is followed, up to 5 hops", async () => {
    const body = await jsonOf(contents({ url: `${site.url}/redirect/3` }));
    expect(body.final_url).toBe(`${site.url}/article.html`);
    expect(body.title).toBe("Council approves the river bridge");
    await expectFailure(`${site.url}/redirect/6`, 502, "fetch_redirects");
    await expectFailure(`${site.url}/redirect-loop`, 502, "fetch_redirects");
  });

  test("a redirect from an allowed host to a private address is blocked, and nothing reaches it", async () => {
    await expectFailure(
      `${site.url}/to-private?target=${encodeURIComponent(`http://127.0.0.1:${canary.port}/secret`)}`,
      400,
      "fetch_blocked",
    );
    await expectFailure(`${site.url}/to-private`, 400, "fetch_blocked");
    await expectFailure(`${site.url}/to-private?target=${encodeURIComponent("http://[::1]/")}`, 400, "fetch_blocked");
    expect(canary.requests()).toBe(0);
  });

  test("gzip and brotli bodies arrive decoded", async () => {
    expect((await jsonOf(contents({ url: `${site.url}/gzip.html` }))).content).toContain("travelled gzip-compressed over the wire");
    expect((await jsonOf(contents({ url: `${site.url}/brotli.html` }))).content).toContain("travelled brotli-compressed over the wire");
  });

  test("a non-UTF-8 charset is honoured", async () => {
    const body = await jsonOf(contents({ url: `${site.url}/latin1.html` }));
    expect(body.title).toBe("Café crème à Zürich");
    expect(body.content).toContain("Käse, Würste und Grüße");
    expect(body.language).toBe("de");
  });

  test("a slow drip body times out, within the deadline, never hangs", async () => {
    const ms = await expectFailure(`${site.url}/drip`, 504, "fetch_timeout");
    expect(ms).toBeLessThan(3_000);
  });

  test("late response headers time out on the first-byte budget", async () => {
    const ms = await expectFailure(`${site.url}/slow-headers`, 504, "fetch_timeout");
    expect(ms).toBeLessThan(2_500);
  });

  test("an endless body stops at the size cap", async () => {
    await expectFailure(`${site.url}/endless`, 502, "fetch_too_large");
  });

  test("a compressed body that inflates past the cap stops at the cap", async () => {
    await expectFailure(`${site.url}/gzip-bomb`, 502, "fetch_too_large");
  });
});

describe("types", () => {
  test("a PDF served as application/octet-stream is read as a PDF", async () => {
    const body = await jsonOf(contents({ url: `${site.url}/report.pdf-octet` }));
    expect(body.content_type).toBe("application/pdf");
    expect(body.content).toContain("Quarterly report of the river bridge project.");
  });

  test("an HTML page served as application/pdf is read as HTML", async () => {
    const body = await jsonOf(contents({ url: `${site.url}/html-as-pdf` }));
    expect(body.content_type).toBe("text/html");
    expect(body.content).toContain("This is HTML although the server calls it a PDF document.");
  });

  test("plain text and JSON pass through", async () => {
    const text = await jsonOf(contents({ url: `${site.url}/plain.txt` }));
    expect(text.content_type).toBe("text/plain");
    expect(text.content).toContain("Second paragraph of the notes.");
    const json = await jsonOf(contents({ url: `${site.url}/data.json` }));
    expect(json.content_type).toBe("application/json");
    expect(json.content).toContain('"lanes": 2');
  });

  test("an unsupported type and a 404 fail with their codes", async () => {
    await expectFailure(`${site.url}/image.png`, 502, "unsupported_content_type");
    await expectFailure(`${site.url}/nothing-here`, 502, "fetch_status");
  });

  test("a site's error status is one code, with the site's status beside it", async () => {
    const body = await jsonOf(await contents({ url: `${site.url}/nothing-here`, max_age_seconds: 0 }));
    expect(body).toEqual({ detail: "the page answered with status 404", error: "fetch_status", upstream_status: 404 });
  });
});

describe("extraction runs in worker threads with a time limit", () => {
  test("a page that takes too long fails with extraction_failed, and the next read works", async () => {
    const strict = await startTestApp(database, {
      env: { FETCH_ALLOW_HOSTS: `127.0.0.1:${site.port}`, EXTRACT_TIMEOUT_MS: "1000", FETCH_MAX_BYTES: "8000000" },
    });
    try {
      const key = (await strict.account({ limit: 100_000 })).apiKey;
      const call = (url: string) =>
        strict.fetch("/v1/contents", {
          method: "POST",
          headers: { "X-API-Key": key, "content-type": "application/json" },
          body: JSON.stringify({ url, max_age_seconds: 0 }),
        });
      const started = performance.now();
      const slow = await call(`${site.url}/huge-table.html`);
      expect(slow.status).toBe(502);
      expect(await jsonOf(slow)).toEqual({ detail: "the page could not be extracted within 1000 ms", error: "extraction_failed" });
      expect(performance.now() - started).toBeLessThan(3_000);
      const next = await call(`${site.url}/article.html`);
      expect(next.status).toBe(200);
      expect((await jsonOf(next)).title).toBe("Council approves the river bridge");
    } finally {
      await strict.stop();
    }
  });
});

describe("bad URLs are 422 naming the rule", () => {
  for (const [url, type] of [
    ["ftp://example.com/file", "url_scheme"],
    ["javascript:alert(1)", "url_scheme"],
    ["not a url", "url_parsing"],
    ["http://user:secret@example.com/", "url_credentials"],
    ["//example.com/relative", "url_parsing"],
  ] as const) {
    test(url, async () => {
      const response = await contents({ url });
      expect(response.status).toBe(422);
      const body = await jsonOf(response);
      expect(body.detail[0].loc).toEqual(["body", "url"]);
      expect(body.detail[0].type).toBe(type);
      expect(JSON.stringify(body)).not.toContain("secret");
    });
  }
  test("a missing or oversized url, a bad format", async () => {
    expect((await jsonOf(contents({}))).detail[0]).toEqual({ loc: ["body", "url"], msg: "Field required", type: "missing" });
    expect((await jsonOf(contents({ url: `https://x.com/${"a".repeat(5000)}` }))).detail[0].type).toBe("string_too_long");
    expect((await jsonOf(contents({ url: "https://x.com/", format: "pdf" }))).detail[0].loc).toEqual(["body", "format"]);
    expect((await jsonOf(contents({ url: "https://x.com/", max_age_seconds: -1 }))).detail[0].loc).toEqual(["body", "max_age_seconds"]);
  });
});

describe("the page cache", () => {
  test("a stale entry is revalidated with a conditional request: a 304 keeps the stored copy", async () => {
    const first = await jsonOf(contents({ url: `${site.url}/etag.html` }));
    expect(first.cached).toBe(false);
    clock.advance(2 * 86_400_000);
    const again = await jsonOf(contents({ url: `${site.url}/etag.html` }));
    expect(again.cached).toBe(true);
    expect(site.notModifiedSent).toBe(1);
    expect(again.content).toBe(first.content);
    expect(Date.parse(again.fetched_at)).toBeGreaterThan(Date.parse(first.fetched_at));
    expect(site.hits.get("/etag.html")).toBe(2);
  });

  test("a hot page is served from memory: the table is not read again while the held copy is fresh enough", async () => {
    const url = `${site.url}/article.html?hot=1`;
    const first = await jsonOf(contents({ url, format: "text" }));
    expect(first.cached).toBe(false);
    // Changed underneath in the table: a held copy does not read it.
    await app.db.execute(sql`update pages set title = 'Changed underneath' where url = ${url}`);
    const held = await jsonOf(contents({ url, format: "text" }));
    expect({ cached: held.cached, title: held.title }).toEqual({ cached: true, title: first.title });
    // Its counts are kept per view: the same view counts the same, a cut counts its cut.
    expect({ words: held.word_count, tokens: held.token_count }).toEqual({ words: first.word_count, tokens: first.token_count });
    const cut = await jsonOf(contents({ url, format: "text", max_characters: 40 }));
    const cutAgain = await jsonOf(contents({ url, format: "text", max_characters: 40 }));
    expect(cut.word_count).toBeLessThan(first.word_count);
    expect(cutAgain.word_count).toBe(cut.word_count);
    expect(cutAgain.token_count).toBe(cut.token_count);
  });

  test("a held copy too old for the call is looked up in the table, and a newer copy stored there (another instance's read) replaces it", async () => {
    const url = `${site.url}/article.html?hot=2`;
    const hits = site.hits.get("/article.html") ?? 0;
    await jsonOf(contents({ url }));
    clock.advance(10_000);
    await app.db.execute(
      sql`update pages set title = 'Read again elsewhere', fetched_at = ${new Date(clock.now()).toISOString()}::timestamptz where url = ${url}`,
    );
    expect((await jsonOf(contents({ url }))).title).not.toBe("Read again elsewhere");
    const newer = await jsonOf(contents({ url, max_age_seconds: 5 }));
    expect({ cached: newer.cached, title: newer.title }).toEqual({ cached: true, title: "Read again elsewhere" });
    expect((await jsonOf(contents({ url }))).title).toBe("Read again elsewhere");
    expect(site.hits.get("/article.html")).toBe(hits + 1);
  });

  test("a search's lookup of a stored page brings what ranks and cites it, not its HTML, text or links", async () => {
    const stored = await jsonOf(contents({ url: `${site.url}/article.html`, format: "markdown" }));
    const page = await findPageText(app.db, `${site.url}/article.html`);
    expect(Object.keys(page!).sort()).toEqual(["etag", "fetchedAt", "finalUrl", "id", "lastModified", "markdown", "title", "url"]);
    expect(page!.markdown).toBe(stored.content);
    expect(page!.title).toBe("Council approves the river bridge");
    expect(await findPageText(app.db, `${site.url}/never-read.html`)).toBeNull();
  });
});

describe("the local index", () => {
  test("every page read is searchable, with domain filters", async () => {
    const index = new LocalIndex(app.db);
    const hits = await index.search("when does construction of the river bridge begin?", { limit: 5 });
    expect(hits.length).toBeGreaterThan(0);
    expect(hits[0]!.url).toBe(`${site.url}/article.html`);
    expect(hits[0]!.snippet).toContain("river bridge");
    expect((await index.search("river bridge", { domains: ["127.0.0.1"] })).length).toBeGreaterThan(0);
    expect(await index.search("river bridge", { domains: ["example.com"] })).toEqual([]);
    expect((await index.search("river bridge", { domains: [`${site.url}/article`] }))[0]?.url).toBe(`${site.url}/article.html`);
    expect(await index.search("the of and")).toEqual([]);
    expect(await index.search("quarterly budget report")).toContainEqual(expect.objectContaining({ url: `${site.url}/report.pdf-octet` }));
  });
});
