/**
 * How a failed run ends, on every face: the JSON answer, the SSE stream and
 * the WebSocket all map a failure here, so the same failure has the same
 * status (the HTTP status, or the one a stream's usage record carries) and
 * the same code. The status table itself is the error mapping's
 * (http/errors.ts), which answers errors raised before a face takes over.
 * The run wrapper (hold.ts) reads the status here for a run's usage record.
 */
import { ServiceError, type ValidationIssue } from "../../errors.ts";
import { toErrorOutcome } from "../../http/errors.ts";
import type { Logger } from "../../log.ts";
import type { ResearchEvent } from "../types.ts";

/** What a stream sends: the run's events, and the one `error` that ends a failed run (its text is FaceOutcome.message). */
export type FaceMessage = ResearchEvent | { type: "error"; content: string };

export interface FaceOutcome {
  status: number;
  /** Our stable code: the JSON body's `error`; `validation_failed` for a 422. */
  code: string;
  /**
   * A stream's `error` text: the JSON answer's detail, and its code in
   * parentheses; a 422 lists its problems (`loc: msg`) as the JSON detail does.
   */
  message: string;
  /** The JSON face's body and headers. */
  body: Record<string, unknown>;
  headers: Record<string, string>;
  /** Set when the failure is our bug: the face logs it; callers see only the request id. */
  internal?: unknown;
  /** What a library or an upstream said about one of our errors: for the log only. */
  cause?: unknown;
}

export function faceOutcome(error: unknown, requestId: string): FaceOutcome {
  const outcome = toErrorOutcome(error, requestId);
  const code = typeof outcome.body.error === "string" ? outcome.body.error : "validation_failed";
  const detail = outcome.body.detail;
  const message = Array.isArray(detail)
    ? (detail as ValidationIssue[]).map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; ")
    : `${typeof detail === "string" ? detail : "the request failed"} (${code})`;
  const cause = error instanceof ServiceError ? error.cause : undefined;
  return {
    status: outcome.status,
    code,
    message,
    body: outcome.body,
    headers: outcome.headers,
    ...(outcome.internal !== undefined ? { internal: outcome.internal } : {}),
    ...(cause !== undefined ? { cause } : {}),
  };
}

/**
 * What a face logs about a failure, with the call's request id (and its trace id, when the call has one): our bug as
 * an error, an upstream's words as a warning.
 */
export function logOutcome(log: Logger, requestId: string, outcome: FaceOutcome, face: string, traceId?: string): void {
  if (outcome.internal === undefined && outcome.cause === undefined) return;
  const ids = traceId ? { request_id: requestId, trace_id: traceId } : { request_id: requestId };
  if (outcome.internal !== undefined) log.error(`${face} failed`, { ...ids, error: outcome.internal });
  else log.warn(`${face} failed`, { ...ids, code: outcome.code, cause: outcome.cause });
}
