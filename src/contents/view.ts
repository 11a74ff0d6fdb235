/** A page read for POST /v1/contents, as the caller asked to see it: one format, cut to max_characters, counted. */
import type { Static } from "@sinclair/typebox";
import { ServiceError } from "../errors.ts";
import { NO_SPAN, type TraceSpan } from "../observe/trace.ts";
import { countTokens, countWords } from "../tokens.ts";
import { parseRequestedUrl } from "./egress/policy.ts";
import type { ContentsRequest } from "./model.ts";
import { HotPages } from "./hot-pages.ts";
import { pageReadDone } from "./read-metrics.ts";
import { readPage, type ContentsContext, type PageRead } from "./service.ts";

type Format = "markdown" | "text" | "html";

/** Cuts at a character boundary that does not split a surrogate pair. */
function cut(text: string, max: number | null | undefined): { content: string; truncated: boolean } {
  if (!max || text.length <= max) return { content: text, truncated: false };
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return { content: text.slice(0, end), truncated: true };
}

function contentsView({ page, cached, hot }: PageRead, format: Format, maxCharacters?: number | null) {
  const { content, truncated } = cut(format === "html" ? page.html : format === "text" ? page.text : page.markdown, maxCharacters);
  const count = () => ({ words: countWords(content), tokens: countTokens(content) });
  const { words, tokens } = hot ? HotPages.counted(hot, `${format}:${truncated ? content.length : "all"}`, count) : count();
  return {
    url: page.url,
    final_url: page.finalUrl,
    title: page.title,
    byline: page.byline,
    site_name: page.siteName,
    published_at: page.publishedAt?.toISOString() ?? null,
    language: page.language,
    content_type: page.contentType,
    content,
    word_count: words,
    token_count: tokens,
    links: page.links,
    fetched_at: page.fetchedAt.toISOString(),
    cached,
    truncated,
  };
}

/**
 * Reads the page (through the page cache and the SSRF guard) and shapes it.
 * `span` (the request's) gets a page.read span naming the page's host only;
 * no trace context is sent to the site.
 */
export async function readContents(
  ctx: ContentsContext,
  body: Static<typeof ContentsRequest>,
  signal: AbortSignal,
  span: TraceSpan = NO_SPAN,
) {
  const url = parseRequestedUrl(body.url, ["body", "url"]);
  const startedAt = performance.now();
  const traced = span.child("page.read", { "server.address": url.hostname }, "client");
  let read: PageRead;
  try {
    read = await readPage(ctx, { url, maxAgeSeconds: body.max_age_seconds ?? undefined, signal });
  } catch (error) {
    // A caller that went away did not see the read fail: it is not counted.
    if (!signal.aborted) pageReadDone("failed", startedAt);
    const upstream = error instanceof ServiceError ? error.extra.body?.upstream_status : undefined;
    traced.set({
      "page.outcome": "failed",
      "error.type": error instanceof ServiceError ? error.code : "other",
      "http.response.status_code": typeof upstream === "number" ? upstream : undefined,
    });
    traced.fail(signal.aborted ? "aborted" : "failed");
    traced.end();
    throw error;
  }
  const outcome = read.cached ? "cached" : "fetched";
  pageReadDone(outcome, startedAt);
  traced.set({ "page.outcome": outcome, "page.cache_hit": read.cached, "page.content_chars": read.page.markdown.length });
  traced.end();
  return contentsView(read, body.format ?? "markdown", body.max_characters);
}
