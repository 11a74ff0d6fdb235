/**
 * readPage: the one code path by which the service reads a page, for
 * POST /v1/contents and for every source the research engine reads. Cache
 * first (within max age); a stale entry is revalidated with a conditional
 * request; a fresh read is extracted, counted, cut into passages and stored,
 * which also puts it in the local index. Concurrent reads of one URL share
 * one fetch.
 */
import type { Database } from "../../db/client.ts";
import { untilAborted } from "../abort.ts";
import type { Clock } from "../clock.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../log.ts";
import { countTokens, countWords } from "../tokens.ts";
import type { SafeFetch } from "./egress/safe-fetch.ts";
import type { Extractor } from "./extraction-pool.ts";
import type { HotPage } from "./hot-pages.ts";
import type { PageReads, SharedRead } from "./page-reads.ts";
import { splitPassages } from "./passages.ts";
import { pageCacheLookup } from "./read-metrics.ts";
import * as q from "./queries.ts";

export interface ContentsContext {
  db: Database;
  fetcher: SafeFetch;
  clock: Clock;
  log: Logger;
  defaultMaxAgeSeconds: number;
  reads: PageReads;
  extractor: Extractor;
}

export interface PageRead<P = q.PageRow> {
  page: P;
  /** True when the stored copy was served (fresh, or revalidated with a 304). */
  cached: boolean;
  /** Set when the page came from the hot pages in memory: where its views' counts are kept. */
  hot?: HotPage;
}

/** Types worth downloading; the extractor sniffs the bytes of these and decides. */
export function readableType(mediaType: string): boolean {
  return (
    mediaType === "" ||
    mediaType.startsWith("text/") ||
    mediaType === "application/xhtml+xml" ||
    mediaType === "application/xml" ||
    mediaType === "application/pdf" ||
    mediaType === "application/x-pdf" ||
    mediaType === "application/json" ||
    mediaType.endsWith("+json") ||
    mediaType.endsWith("+xml") ||
    mediaType === "application/octet-stream" ||
    mediaType === "binary/octet-stream"
  );
}

/**
 * `waitForStore: false` returns as soon as the page is extracted and stores
 * it in the background: the research engine's reads do not wait for the
 * cache write (on the embedded database writes queue one at a time).
 */
export function readPage(ctx: ContentsContext, input: ReadInput): Promise<PageRead> {
  return readThrough(ctx, input, q.findPage, (row) => ctx.reads.hot.hold(row));
}

/** readPage for research: a page served from the cache comes without what a search never uses (q.PageText). */
export function readPageText(ctx: ContentsContext, input: ReadInput): Promise<PageRead<q.PageText>> {
  return readThrough(ctx, input, q.findPageText, () => {});
}

interface ReadInput {
  url: URL;
  maxAgeSeconds?: number;
  signal?: AbortSignal;
  waitForStore?: boolean;
  /**
   * Called once the site's answer is in, when the page is fetched (not for a
   * cached one): what is left is this process's own work, which a read
   * grace (research/read-grace.ts) does not cut.
   */
  onFetched?: () => void;
}

/** `hold` hears a fresh row `find` read: the hot pages hold whole rows only. */
async function readThrough<P extends q.PageText>(
  ctx: ContentsContext,
  input: ReadInput,
  find: (db: Database, url: string) => Promise<P | null>,
  hold: (row: P) => void,
): Promise<PageRead<P | q.PageRow>> {
  const key = input.url.toString();
  const maxAge = input.maxAgeSeconds ?? ctx.defaultMaxAgeSeconds;
  const since = ctx.clock.now() - maxAge * 1000;
  // A max age of 0 asks for the web: no cache is looked in (the stored copy only makes the fetch conditional).
  if (maxAge > 0) {
    // In memory: a page read and being stored, or a hot page.
    const pending = ctx.reads.storing.get(key);
    if (pending) {
      pageCacheLookup("memory", true);
      return { page: pending, cached: true };
    }
    const hot = ctx.reads.hot.fresh(key, since);
    pageCacheLookup("memory", hot !== undefined);
    if (hot) return { page: hot.row, cached: true, hot };
  }
  const existing = await find(ctx.db, key);
  if (maxAge > 0) pageCacheLookup("database", existing !== null && existing.fetchedAt.getTime() >= since);
  if (existing && maxAge > 0 && existing.fetchedAt.getTime() >= since) {
    hold(existing);
    return { page: existing, cached: true };
  }

  // One fetch per URL at a time; each caller still gives up on its own signal.
  const flightKey = `${key}\u0000${maxAge > 0 ? "revalidate" : "fresh"}`;
  let flight = ctx.reads.inflight.get(flightKey);
  if (!flight) {
    // A failed fetch never settles `fetched`: its readers hear the failure from the read.
    const fetched = Promise.withResolvers<void>();
    const read = fetchAndStore(ctx, input.url, maxAge > 0 ? existing : null, fetched.resolve).finally(() =>
      ctx.reads.inflight.delete(flightKey),
    );
    flight = { read, fetched: fetched.promise };
    ctx.reads.inflight.set(flightKey, flight);
  }
  if (input.onFetched) void flight.fetched.then(input.onFetched);
  const read = input.signal ? await untilAborted(flight.read, input.signal) : await flight.read;
  if (input.waitForStore !== false) await (input.signal ? untilAborted(read.stored, input.signal) : read.stored);
  return { page: read.page, cached: read.cached };
}

async function fetchAndStore(ctx: ContentsContext, url: URL, stale: q.PageText | null, onFetched: () => void): Promise<SharedRead> {
  const conditional: Record<string, string> = {};
  if (stale?.etag) conditional["If-None-Match"] = stale.etag;
  if (stale?.lastModified) conditional["If-Modified-Since"] = stale.lastModified;
  const fetched = await ctx.fetcher.fetch(url, { headers: conditional, acceptType: readableType });
  onFetched();
  const now = new Date(ctx.clock.now());
  if (fetched.notModified && stale) {
    const page = await q.revalidatePage(ctx.db, stale.id, now, fetched.etag, fetched.lastModified);
    if (page) ctx.reads.hot.hold(page);
    // The stored row comes back whole; a row gone meanwhile is read again (the stale copy may be a PageText only).
    return page ? { page, cached: true, stored: Promise.resolve() } : fetchAndStore(ctx, url, null, onFetched);
  }
  const document = await ctx.extractor.extract({ body: fetched.body, contentType: fetched.contentType, url: fetched.finalUrl });
  const finalUrl = new URL(fetched.finalUrl);
  const row: q.NewPage & q.PageRow = {
    id: newId("page"),
    url: url.toString(),
    finalUrl: fetched.finalUrl,
    host: finalUrl.hostname.toLowerCase(),
    contentType: document.contentType,
    title: document.title,
    byline: document.byline,
    siteName: document.siteName,
    publishedAt: parseDate(document.publishedAt),
    language: document.language ?? fetched.contentLanguage?.split(",")[0]?.trim() ?? null,
    html: document.html,
    markdown: document.markdown,
    text: document.text,
    links: document.links,
    wordCount: countWords(document.text),
    tokenCount: countTokens(document.text),
    etag: fetched.etag,
    lastModified: fetched.lastModified,
    fetchedAt: now,
    createdAt: now,
  };
  ctx.reads.storing.set(row.url, row);
  ctx.reads.hot.hold(row);
  const stored = q
    .savePage(ctx.db, row, splitPassages(document.markdown))
    .then(
      () => {},
      (error: unknown) => ctx.log.warn("page not stored", { url: row.url, error }),
    )
    .finally(() => ctx.reads.storing.delete(row.url));
  ctx.reads.track(stored);
  return { page: row, cached: false, stored };
}

function parseDate(value: string | null): Date | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}
