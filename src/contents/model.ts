import { t } from "elysia";

export const ContentsRequest = t.Object({
  url: t.String({
    minLength: 1,
    maxLength: 4096,
    description: "The page to read: an absolute http or https URL without credentials.",
    examples: ["https://example.com/article"],
  }),
  format: t.Optional(
    t.Nullable(
      t.Union([t.Literal("markdown"), t.Literal("text"), t.Literal("html")], {
        default: "markdown",
        description: "How `content` is written. Default markdown.",
      }),
    ),
  ),
  max_characters: t.Optional(
    t.Nullable(t.Integer({ minimum: 1, maximum: 10_000_000, description: "Cut `content` to at most this many characters." })),
  ),
  max_age_seconds: t.Optional(
    t.Nullable(
      t.Integer({
        minimum: 0,
        maximum: 31_536_000,
        description: "Reuse a stored copy read at most this long ago (default a day); 0 forces a fresh fetch.",
      }),
    ),
  ),
});

export const ContentsResponse = t.Object({
  url: t.String({ description: "The requested URL, normalised." }),
  final_url: t.String({ description: "The URL after redirects." }),
  title: t.Nullable(t.String()),
  byline: t.Nullable(t.String()),
  site_name: t.Nullable(t.String()),
  published_at: t.Nullable(t.String({ format: "date-time" })),
  language: t.Nullable(t.String()),
  content_type: t.String({ description: "What was extracted: text/html, application/pdf, text/plain, application/json..." }),
  content: t.String({ description: "The page's main content (boilerplate removed) in the asked format." }),
  word_count: t.Integer({ description: "Words in `content`." }),
  token_count: t.Integer({ description: "Tokens in `content` (o200k_base)." }),
  links: t.Array(t.String(), { description: "Absolute URLs linked from the main content." }),
  fetched_at: t.String({ format: "date-time" }),
  cached: t.Boolean({ description: "True when a stored copy was served (fresh, or confirmed unchanged by the site)." }),
  truncated: t.Boolean({ description: "True when max_characters cut the content." }),
});

export const FetchErrorBody = t.Object({
  detail: t.String(),
  error: t.String({
    description:
      "fetch_blocked, fetch_timeout, fetch_too_large, fetch_status (the site's status in upstream_status), fetch_redirects, fetch_failed, unsupported_content_type, pdf_unreadable or extraction_failed",
  }),
  upstream_status: t.Optional(t.Integer({ description: "With fetch_status: the status the site answered." })),
});
