/**
 * readPage: the one code path by which the service reads a page, for
 * POST /v1/contents and for every source the research engine reads. Cache
 * first (within max age); a stale entry is revalidated with a conditional
 * request; a fresh read is extracted, counted, cut into passages and stored,
 * which also puts it in the local index. Concurrent reads of one URL share
 * one fetch.
 */
import type { Database } from "../../db/client.ts";
import type { Clock } from "../clock.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../log.ts";
import { countTokens, countWords } from "../tokens.ts";
import type { SafeFetch } from "./egress/safe-fetch.ts";
import { extractDocument } from "./extract/index.ts";
import { splitPassages } from "./passages.ts";
import * as q from "./queries.ts";

export interface ContentsContext {
  db: Database;
  fetcher: SafeFetch;
  clock: Clock;
  log: Logger;
  defaultMaxAgeSeconds: number;
}

export interface PageRead {
  page: q.PageRow;
  /** True when the stored copy was served (fresh, or revalidated with a 304). */
  cached: boolean;
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

const inflight = new Map<string, Promise<PageRead>>();

export async function readPage(ctx: ContentsContext, input: { url: URL; maxAgeSeconds?: number; signal?: AbortSignal }): Promise<PageRead> {
  const key = input.url.toString();
  const maxAge = input.maxAgeSeconds ?? ctx.defaultMaxAgeSeconds;
  const existing = await q.findPage(ctx.db, key);
  if (existing && maxAge > 0 && ctx.clock.now() - existing.fetchedAt.getTime() <= maxAge * 1000) return { page: existing, cached: true };

  // One fetch per URL at a time; each caller still gives up on its own signal.
  const flightKey = `${key}\u0000${maxAge > 0 ? "revalidate" : "fresh"}`;
  let shared = inflight.get(flightKey);
  if (!shared) {
    shared = fetchAndStore(ctx, input.url, maxAge > 0 ? existing : null).finally(() => inflight.delete(flightKey));
    inflight.set(flightKey, shared);
  }
  if (!input.signal) return shared;
  const signal = input.signal;
  signal.throwIfAborted();
  return Promise.race([shared, new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }))]);
}

async function fetchAndStore(ctx: ContentsContext, url: URL, stale: q.PageRow | null): Promise<PageRead> {
  const conditional: Record<string, string> = {};
  if (stale?.etag) conditional["If-None-Match"] = stale.etag;
  if (stale?.lastModified) conditional["If-Modified-Since"] = stale.lastModified;
  const fetched = await ctx.fetcher.fetch(url, { headers: conditional, acceptType: readableType });
  const now = new Date(ctx.clock.now());
  if (fetched.notModified && stale) {
    const page = await q.revalidatePage(ctx.db, stale.id, now, fetched.etag, fetched.lastModified);
    return { page: page ?? stale, cached: true };
  }
  const document = await extractDocument({ body: fetched.body, contentType: fetched.contentType, url: fetched.finalUrl });
  const finalUrl = new URL(fetched.finalUrl);
  const page = await q.savePage(
    ctx.db,
    {
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
    },
    splitPassages(document.markdown),
  );
  return { page, cached: false };
}

function parseDate(value: string | null): Date | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}
