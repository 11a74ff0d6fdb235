import { Elysia } from "elysia";
import { authenticated, type AuthDeps } from "../http/auth.ts";
import { secured } from "../http/openapi.ts";
import { requestMeta } from "../http/request-context.ts";
import { countTokens, countWords } from "../tokens.ts";
import { parseRequestedUrl } from "./egress/policy.ts";
import { ContentsRequest, ContentsResponse, FetchErrorBody } from "./model.ts";
import type { PageRow } from "./queries.ts";
import { readPage, type ContentsContext } from "./service.ts";

type Format = "markdown" | "text" | "html";

/** Cuts at a character boundary that does not split a surrogate pair. */
function cut(text: string, max: number | null | undefined): { content: string; truncated: boolean } {
  if (!max || text.length <= max) return { content: text, truncated: false };
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return { content: text.slice(0, end), truncated: true };
}

export function contentsView(page: PageRow, cached: boolean, format: Format, maxCharacters?: number | null) {
  const { content, truncated } = cut(format === "html" ? page.html : format === "text" ? page.text : page.markdown, maxCharacters);
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
    word_count: countWords(content),
    token_count: countTokens(content),
    links: page.links,
    fetched_at: page.fetchedAt.toISOString(),
    cached,
    truncated,
  };
}

export function contentsRoutes(auth: AuthDeps, contents: ContentsContext) {
  return new Elysia({ prefix: "/v1" }).use(authenticated(auth)).post(
    "/contents",
    async ({ body, request }) => {
      const url = parseRequestedUrl(body.url, ["body", "url"]);
      const { page, cached } = await readPage(contents, { url, maxAgeSeconds: body.max_age_seconds ?? undefined, signal: request.signal });
      const view = contentsView(page, cached, body.format ?? "markdown", body.max_characters);
      requestMeta(request).tokens = view.token_count;
      return view;
    },
    {
      body: ContentsRequest,
      response: { 200: ContentsResponse, 400: FetchErrorBody, 502: FetchErrorBody, 504: FetchErrorBody },
      detail: secured({
        tags: ["Contents"],
        summary: "Read a page: its main content as markdown, text or HTML, with metadata",
        description:
          "Fetches the page through the SSRF guard (public addresses only, at most 5 redirects, size and time limits), extracts the main content (PDFs too), and stores it in the page cache and the local index. A page that cannot be read answers with a stable error code.",
      }),
    },
  );
}
