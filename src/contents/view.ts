/** A page read for POST /v1/contents, as the caller asked to see it: one format, cut to max_characters, counted. */
import type { Static } from "@sinclair/typebox";
import { countTokens, countWords } from "../tokens.ts";
import { parseRequestedUrl } from "./egress/policy.ts";
import type { ContentsRequest } from "./model.ts";
import { HotPages } from "./hot-pages.ts";
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

/** Reads the page (through the page cache and the SSRF guard) and shapes it. */
export async function readContents(ctx: ContentsContext, body: Static<typeof ContentsRequest>, signal: AbortSignal) {
  const url = parseRequestedUrl(body.url, ["body", "url"]);
  const read = await readPage(ctx, { url, maxAgeSeconds: body.max_age_seconds ?? undefined, signal });
  return contentsView(read, body.format ?? "markdown", body.max_characters);
}
