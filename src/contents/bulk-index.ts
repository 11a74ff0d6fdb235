/**
 * Bulk indexing for the CLI: read many pages (from a list or a sitemap)
 * through readPage with bounded concurrency, reporting progress as it goes.
 * A page that fails is counted and named, never fatal to the run.
 */
import { ServiceError } from "../errors.ts";
import { parseRequestedUrl } from "./egress/policy.ts";
import type { SafeFetch } from "./egress/safe-fetch.ts";
import { readPage, type ContentsContext } from "./service.ts";

export interface IndexProgress {
  done: number;
  total: number;
  failed: number;
}

export interface IndexSummary extends IndexProgress {
  indexed: number;
  cached: number;
  failures: { url: string; error: string; detail: string }[];
}

export async function indexUrls(
  ctx: ContentsContext,
  urls: string[],
  options: { concurrency: number; maxAgeSeconds?: number; onProgress?: (progress: IndexProgress) => void; signal?: AbortSignal },
): Promise<IndexSummary> {
  const unique = [...new Set(urls)];
  const summary: IndexSummary = { done: 0, total: unique.length, failed: 0, indexed: 0, cached: 0, failures: [] };
  let next = 0;
  const worker = async () => {
    while (next < unique.length && !options.signal?.aborted) {
      const raw = unique[next++]!;
      try {
        const { cached } = await readPage(ctx, {
          url: parseRequestedUrl(raw, ["url"]),
          maxAgeSeconds: options.maxAgeSeconds,
          signal: options.signal,
        });
        if (cached) summary.cached++;
        else summary.indexed++;
      } catch (error) {
        summary.failed++;
        summary.failures.push(
          error instanceof ServiceError
            ? { url: raw, error: error.code, detail: error.message }
            : { url: raw, error: "internal_error", detail: "unexpected error" },
        );
      }
      summary.done++;
      options.onProgress?.({ done: summary.done, total: summary.total, failed: summary.failed });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, unique.length)) }, worker));
  return summary;
}

const LOC = /<loc>\s*(?:<!\[CDATA\[)?\s*([^<\]\s]+)\s*(?:\]\]>)?\s*<\/loc>/gi;

const xmlText = (value: string) =>
  value
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'");

/** Page URLs of a sitemap (following a sitemap index one level down), fetched through the SSRF guard. */
export async function sitemapUrls(
  fetcher: SafeFetch,
  sitemap: string,
  options: { limit: number; signal?: AbortSignal },
): Promise<string[]> {
  const read = async (url: string) => {
    const fetched = await fetcher.fetch(parseRequestedUrl(url, ["sitemap"]), {
      signal: options.signal,
      acceptType: (type) => type === "" || type.includes("xml") || type.startsWith("text/"),
    });
    const body = new TextDecoder().decode(fetched.body);
    return { isIndex: /<sitemapindex[\s>]/i.test(body), locs: [...body.matchAll(LOC)].map((m) => xmlText(m[1]!)) };
  };
  const top = await read(sitemap);
  if (!top.isIndex) return top.locs.slice(0, options.limit);
  const pages: string[] = [];
  for (const child of top.locs) {
    if (pages.length >= options.limit) break;
    try {
      pages.push(...(await read(child)).locs);
    } catch {
      // One broken child sitemap leaves the others usable.
    }
  }
  return pages.slice(0, options.limit);
}

/** One line of progress for a terminal: a bar, counts, failures. */
export function progressBar({ done, total, failed }: IndexProgress, width = 30): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total}${failed ? `, ${failed} failed` : ""}`;
}
