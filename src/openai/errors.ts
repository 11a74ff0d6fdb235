/**
 * Errors on the OpenAI-compatible face, in OpenAI's shape: `{"error":
 * {"message", "type", "param", "code"}}`, which its SDKs turn into their
 * typed errors by status (AuthenticationError, RateLimitError, ...). The
 * statuses are the ones every other route uses, but for a body the caller
 * got wrong: OpenAI answers that 400, never 422, and names the field as
 * `param`. Rate limits also carry the `x-ratelimit-*-requests` headers
 * OpenAI's clients read.
 */
import type { ErrorOutcome } from "../http/errors.ts";
import type { ValidationIssue } from "../errors.ts";

/** The routes that answer in this shape. */
export function speaksOpenAi(path: string): boolean {
  return path === "/v1/chat/completions" || path === "/v1/responses" || path === "/v1/models" || path.startsWith("/v1/models/");
}

const TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  409: "invalid_request_error",
  413: "invalid_request_error",
  415: "invalid_request_error",
  429: "rate_limit_error",
};

/**
 * A field's location as OpenAI names it: `messages[0].content`, without our leading `body`. A body that is not
 * JSON (or nests too deep) is located by a character offset, which names no field.
 */
export function paramOf(loc: readonly (string | number)[]): string | null {
  const path = loc[0] === "body" ? loc.slice(1) : loc;
  if (path.length === 0 || (path.length === 1 && typeof path[0] === "number")) return null;
  let text = "";
  for (const part of path) text += typeof part === "number" ? `[${part}]` : text ? `.${part}` : part;
  return text;
}

/** Our outcome (http/errors.ts), as OpenAI's SDKs expect to read it. `sent` are the headers already on the response (the limit's). */
export function openAiOutcome(outcome: ErrorOutcome, sent: Record<string, string | number | undefined> = {}): ErrorOutcome {
  const body = outcome.body;
  const issues = Array.isArray(body.detail) ? (body.detail as ValidationIssue[]) : null;
  const status = outcome.status === 422 ? 400 : outcome.status;
  const code = issues ? "invalid_value" : typeof body.error === "string" ? body.error : null;
  const first = issues?.[0];
  const message = first
    ? `${first.msg}${paramOf(first.loc) ? ` (${paramOf(first.loc)})` : ""}`
    : typeof body.detail === "string"
      ? body.detail
      : "the request failed";
  const headers = { ...outcome.headers, ...requestLimitHeaders({ ...sent, ...outcome.headers }) };
  return {
    status,
    body: {
      error: {
        message,
        type: TYPES[status] ?? (status >= 500 ? "server_error" : "invalid_request_error"),
        param: first ? paramOf(first.loc) : typeof body.param === "string" ? body.param : null,
        code: status === 401 ? "invalid_api_key" : status === 429 ? "rate_limit_exceeded" : code,
      },
    },
    headers,
    ...(outcome.internal !== undefined ? { internal: outcome.internal } : {}),
  };
}

/**
 * OpenAI's names for the limit, from ours (http/rate-limit-headers.ts): the
 * requests a minute allowed and left, and when the bucket is full again as a
 * duration (`12s`).
 */
export function requestLimitHeaders(headers: Record<string, string | number | undefined>): Record<string, string> {
  const limit = headers["x-ratelimit-limit"];
  const remaining = headers["x-ratelimit-remaining"];
  const reset = /;t=(\d+)/.exec(String(headers.ratelimit ?? ""))?.[1];
  const out: Record<string, string> = {};
  if (limit !== undefined) out["x-ratelimit-limit-requests"] = String(limit);
  if (remaining !== undefined) out["x-ratelimit-remaining-requests"] = String(remaining);
  if (reset !== undefined) out["x-ratelimit-reset-requests"] = `${reset}s`;
  return out;
}
