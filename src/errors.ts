/**
 * The service's one error vocabulary. Logic throws ServiceError with a stable
 * code and a public message; src/http/errors.ts maps codes to statuses once.
 * Anything else thrown is a bug and becomes a generic 500 carrying only the
 * request id.
 */
export const ERROR_CODES = [
  "bad_request",
  "missing_inputs",
  "node_not_runnable",
  "unauthorized",
  "forbidden",
  /** The calling account is suspended or banned (accounts/status.ts). */
  "account_suspended",
  /** A published endpoint whose owner is suspended or banned: its snapshots are kept, calls are refused. */
  "publisher_suspended",
  "not_found",
  "conflict",
  "payload_too_large",
  "unsupported_media_type",
  "validation_failed",
  "rate_limited",
  "rate_limiter_unavailable",
  "deadline_exceeded",
  "service_unavailable",
  "draining",
  /** This instance's research runs are all busy and its queue of waiting runs is full (research/run/queue.ts). */
  "queue_full",
  /** Usage cannot be written (the database refused it): a billable call is refused rather than answered unbilled (usage/recorder.ts). */
  "usage_unavailable",
  "internal_error",
  // Reading a page for a caller (/v1/contents, a search's reads): the site's failure, not ours.
  "fetch_blocked",
  "fetch_timeout",
  "fetch_too_large",
  /** The site answered a non-2xx status: the status is in the body as `upstream_status`. */
  "fetch_status",
  "fetch_redirects",
  "fetch_failed",
  "unsupported_content_type",
  "extraction_failed",
  "pdf_unreadable",
] as const;

/** Every code the service answers with; http/errors.ts gives each its status, and the compiler checks that none is missing. */
export type ErrorCode = (typeof ERROR_CODES)[number];

const KNOWN = new Set<string>(ERROR_CODES);
/** For codes that crossed a boundary as strings (an extraction worker's reply). */
export const isErrorCode = (code: unknown): code is ErrorCode => typeof code === "string" && KNOWN.has(code);

/** One FastAPI-style validation problem: where, what, and a pydantic-like type. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** `cause`: what a library or an upstream said, for the log only; the caller reads `message`. */
    readonly extra: { retryAfterSeconds?: number; body?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    // An expected outcome (a 4xx, a 503), answered and logged by code and message, never by stack: capturing one
    // cost 2 µs of every refused call (a 429 flood is all refusals).
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    Error.stackTraceLimit = stackTraceLimit;
    this.name = "ServiceError";
  }
}

/** A 422 whose body is FastAPI's `{"detail": [{loc, msg, type}]}`. */
export class InvalidInput extends ServiceError {
  constructor(readonly issues: ValidationIssue[]) {
    super("validation_failed", issues.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; "));
    this.name = "InvalidInput";
  }
}

export const notFound = (what = "resource") => new ServiceError("not_found", `${what} not found`);
export const conflict = (message: string) => new ServiceError("conflict", message);
export const invalid = (loc: (string | number)[], msg: string, type = "value_error") => new InvalidInput([{ loc, msg, type }]);
/** One message for missing, malformed, unknown and revoked credentials: a caller learns nothing about which. */
export const unauthorized = () => new ServiceError("unauthorized", "missing or invalid API key (send it in the X-API-Key header)");
