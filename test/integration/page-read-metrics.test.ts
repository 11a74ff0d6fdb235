/**
 * Page reads as the metrics count them, through the real app: POST
 * /v1/contents reads a page from the web once, then from the page cache in
 * memory; a page that fails is counted failed; each cache tier's lookups by
 * result. Metrics are on for this process: series are compared before and after.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { enableMetrics, renderMetrics } from "../../src/observe/metrics.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { startPageSite, type PageSite } from "../helpers/peers/pages.ts";

let database: TestDatabase;
let app: TestApp;
let site: PageSite;
let apiKey: string;

beforeAll(async () => {
  enableMetrics();
  site = startPageSite();
  database = await freshDatabase();
  app = await startTestApp(database, { env: { FETCH_ALLOW_HOSTS: `127.0.0.1:${site.port}`, FETCH_TIMEOUT_MS: "1500" } });
  apiKey = (await app.account({ limit: 100_000 })).apiKey;
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  site.stop();
});

async function value(series: string): Promise<number> {
  const { text } = await renderMetrics();
  const line = text.split("\n").find((l) => l.startsWith(`agentic_search_${series} `));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

const contents = (url: string, extra: Record<string, unknown> = {}) =>
  app.fetch("/v1/contents", {
    method: "POST",
    headers: { "X-API-Key": apiKey, "content-type": "application/json" },
    body: JSON.stringify({ url, ...extra }),
  });

test("a page read from the web, then from memory; a failed read; each tier's lookups", async () => {
  const series = [
    'page_reads_total{outcome="fetched"}',
    'page_reads_total{outcome="cached"}',
    'page_reads_total{outcome="failed"}',
    'page_read_duration_seconds_count{outcome="fetched"}',
    'page_cache_lookups_total{tier="memory",result="hit"}',
    'page_cache_lookups_total{tier="memory",result="miss"}',
    'page_cache_lookups_total{tier="database",result="miss"}',
  ];
  const before = await Promise.all(series.map(value));
  expect((await contents(`${site.url}/article.html`)).status).toBe(200);
  expect((await contents(`${site.url}/article.html`)).status).toBe(200);
  expect((await contents(`${site.url}/missing.html`, { max_age_seconds: 0 })).status).toBe(502);
  const after = await Promise.all(series.map(value));
  const delta = Object.fromEntries(series.map((s, i) => [s, after[i]! - before[i]!]));
  expect(delta).toEqual({
    'page_reads_total{outcome="fetched"}': 1,
    'page_reads_total{outcome="cached"}': 1,
    'page_reads_total{outcome="failed"}': 1,
    'page_read_duration_seconds_count{outcome="fetched"}': 1,
    // The second read found the page in memory; the first looked in memory and the table and found neither.
    'page_cache_lookups_total{tier="memory",result="hit"}': 1,
    'page_cache_lookups_total{tier="memory",result="miss"}': 1,
    // A max age of 0 looks in no cache.
    'page_cache_lookups_total{tier="database",result="miss"}': 1,
  });
});
