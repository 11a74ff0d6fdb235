/**
 * The one place errors become responses. Every error status has a JSON body
 * `{"detail": "<message>", "error": "<code>"}`; validation failures have
 * FastAPI's `{"detail": [{loc, msg, type}]}`. Branches are on `instanceof`,
 * never on `code` (postgres.js errors carry a SQLSTATE `code` of their own).
 */
import { NotFoundError, ParseError, ValidationError } from "elysia";
import { InvalidInput, ServiceError, type ErrorCode, type ValidationIssue } from "../errors.ts";
import { validationIssues } from "./validation-detail.ts";

/** One status per code: a code without one does not compile. */
const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  missing_inputs: 400,
  // A target the caller may not reach is the caller's request; a page that fails is the site's: 502, or 504 on time.
  fetch_blocked: 400,
  unauthorized: 401,
  forbidden: 403,
  account_suspended: 403,
  publisher_suspended: 403,
  not_found: 404,
  conflict: 409,
  node_not_runnable: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  rate_limited: 429,
  internal_error: 500,
  fetch_failed: 502,
  fetch_status: 502,
  fetch_too_large: 502,
  fetch_redirects: 502,
  unsupported_content_type: 502,
  extraction_failed: 502,
  pdf_unreadable: 502,
  rate_limiter_unavailable: 503,
  service_unavailable: 503,
  draining: 503,
  queue_full: 503,
  usage_unavailable: 503,
  deadline_exceeded: 504,
  fetch_timeout: 504,
};

export function statusFor(code: ErrorCode): number {
  return STATUS[code];
}

export interface ErrorOutcome {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
  /** Set for failures that are our bug: the caller sees only the request id. */
  internal?: unknown;
}

const LOCATION: Record<string, string> = { body: "body", query: "query", params: "path", headers: "header", cookie: "cookie" };

export function validationOutcome(issues: ValidationIssue[]): ErrorOutcome {
  return { status: 422, body: { detail: issues }, headers: {} };
}

/**
 * `rawBody` is the body as our parser produced it: Elysia may normalise the
 * value before validating (an array becomes `{}`), and the 422 must describe
 * what the caller sent.
 */
export function toErrorOutcome(error: unknown, requestId: string, rawBody?: { value: unknown }): ErrorOutcome {
  // Elysia wraps whatever a parse hook throws (our 413 and json_invalid) in a ParseError.
  if (error instanceof ParseError && error.cause instanceof ServiceError) return toErrorOutcome(error.cause, requestId);
  if (error instanceof InvalidInput) return validationOutcome(error.issues);
  if (error instanceof ServiceError) {
    const headers: Record<string, string> = {};
    if (error.extra.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.extra.retryAfterSeconds);
    return { status: statusFor(error.code), body: { detail: error.message, error: error.code, ...error.extra.body }, headers };
  }
  if (error instanceof ValidationError) {
    const root = LOCATION[error.type] ?? error.type;
    const schema = (error.validator as { schema?: unknown })?.schema ?? error.validator;
    const value = error.type === "body" && rawBody ? rawBody.value : error.value;
    let issues = validationIssues(schema, value, [root]);
    if (issues.length === 0) issues = [{ loc: [root], msg: "Input is not valid", type: "value_error" }];
    return validationOutcome(issues);
  }
  if (error instanceof ParseError) {
    return validationOutcome([{ loc: ["body"], msg: "JSON decode error", type: "json_invalid" }]);
  }
  if (error instanceof NotFoundError) {
    return { status: 404, body: { detail: "Not Found", error: "not_found" }, headers: {} };
  }
  return {
    status: 500,
    body: { detail: `internal error; quote request id ${requestId} when reporting it`, error: "internal_error", request_id: requestId },
    headers: {},
    internal: error,
  };
}
