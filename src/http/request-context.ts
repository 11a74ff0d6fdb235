/**
 * Per-request bookkeeping shared by the hooks that run before a route is
 * known (parse errors, 404s) and after the response: the request id (also
 * returned as X-Request-Id), the start time, and what the access log line
 * says of the caller and the call. Kept in a WeakMap keyed by the Request so
 * it exists from the very first hook and is freed with the request. Usage is
 * not here: a route hands it to its Call (call.ts), which this plugin
 * finishes once the response is sent.
 */
import { Elysia } from "elysia";
import type { Caller } from "../caller.ts";
import type { Call } from "./call.ts";
import { ServiceError } from "../errors.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../log.ts";
import { metrics, metricsEnabled, statusClass } from "../observe/metrics.ts";
import { type AnsweredRequest, answeredSpan, requestSpan, type TraceSpan, tracingEnabled, untracedSpan } from "../observe/trace.ts";
import { toErrorOutcome, validationOutcome, type ErrorOutcome } from "./errors.ts";
import { validationIssues } from "./validation-detail.ts";

export class RequestMeta {
  private made: TraceSpan | undefined;
  caller?: Caller;
  /** The authenticated call (auth.ts): its usage record is written when the response is sent. */
  call?: Call;
  errorCode?: string;
  /** The body as parsed, before Elysia normalises it: what a 422 must describe. */
  rawBody?: { value: unknown };
  /** Set when the call's research run waited for a slot: how long, and how many runs were waiting ahead of it. */
  queued?: { waitedMs: number; ahead: number };
  /**
   * Set by the MCP face before it calls a route in-process: the address of the client of its /mcp request, which
   * auth.ts takes in place of this request's own (it has no socket, and its headers are the face's).
   */
  clientAddress?: string | null;
  /** Set by the MCP face before it calls a research route: hears the run start and each of its events, for progress. */
  hear?: (event: { type: "started" | "context" | "response"; content?: unknown }) => void;

  constructor(
    private readonly request: Request,
    readonly id: string,
    readonly startedAt: number,
  ) {}

  /**
   * The request's span (observe/trace.ts): a run's stages, provider calls and page reads are its children. Made when
   * first asked for; a request that is only answered never asks, and its span is recorded at its end without being
   * made (`endSpan`). The probes are left untraced by their route, and no request reads its URL for it (on a route Bun
   * serves natively, Elysia never builds the URL, and building it cost a traced request a microsecond).
   */
  get span(): TraceSpan {
    this.made ??= requestSpan(this.request, this.startedAt);
    return this.made;
  }

  /** The span, made with the route known if nothing asked for it before. */
  spanOf(route: string): TraceSpan {
    this.made ??= requestSpan(this.request, this.startedAt, route);
    return this.made;
  }

  /**
   * Ends the request's span at its response, named by its route template, and says its trace id for the log. A span
   * nothing asked for during the request is never made: a kept trace's span is recorded in one step (answeredSpan),
   * which costs a cheap request a fraction of a span made, named, set and ended.
   */
  endSpan(method: string, route: string, status: number, endedAt: number): string | undefined {
    const made = this.made;
    if (made !== undefined) {
      if (made.recording) made.endAnswered(this.answered(method, route, status, endedAt));
      return made.traceId;
    }
    if (!tracingEnabled()) return untracedSpan(this.request).traceId;
    return answeredSpan(this.request, this.answered(method, route, status, endedAt));
  }

  private answered(method: string, route: string, status: number, endedAt: number): AnsweredRequest {
    return { method, route, status, requestId: this.id, errorType: this.errorCode, startedAt: this.startedAt, endedAt };
  }
}

const metas = new WeakMap<Request, RequestMeta>();
const INCOMING_ID = /^[A-Za-z0-9._:-]{8,64}$/;

export function requestMeta(request: Request): RequestMeta {
  let meta = metas.get(request);
  if (!meta) {
    const incoming = request.headers.get("x-request-id");
    meta = new RequestMeta(request, incoming && INCOMING_ID.test(incoming) ? incoming : newId("req"), performance.now());
    metas.set(request, meta);
  }
  return meta;
}

/** Puts a run's wait for its slot on the request's log line. */
export const queuedOn = (meta: RequestMeta) => (slot: { waitedMs: number; ahead: number }) => {
  meta.queued = { waitedMs: slot.waitedMs, ahead: slot.ahead };
};

function statusNumber(status: unknown): number {
  return typeof status === "number" ? status : 200;
}

/** A route's body schema, by method and route pattern. */
export type BodySchemaOf = (method: string, route: string) => unknown;

/**
 * A face that answers errors in a shape of its own (the OpenAI-compatible one): the outcome as that face says it.
 * `sent` are the headers already set for the response (the rate limit's).
 */
export type ErrorDialect = (path: string, outcome: ErrorOutcome, sent: Record<string, string | number | undefined>) => ErrorOutcome;

/** Request ids, error mapping and the access log, for the whole app. */
export function requestContext(log: Logger, bodySchemaOf: BodySchemaOf = () => undefined, dialect?: ErrorDialect) {
  return new Elysia({ name: "request-context" })
    .onRequest(({ request, set }) => {
      set.headers["x-request-id"] = requestMeta(request).id;
    })
    .onError({ as: "global" }, ({ error, request, set, route, path }) => {
      const meta = requestMeta(request);
      let outcome = toErrorOutcome(error, meta.id, meta.rawBody);
      // Elysia's validator can itself throw while describing a failure (a body field {"toString": 1} breaks its
      // message formatting): whatever it threw, a body that does not fit its schema is the caller's 422.
      const schema = outcome.internal !== undefined && meta.rawBody && route ? bodySchemaOf(request.method, route) : undefined;
      if (schema) {
        const issues = validationIssues(schema, meta.rawBody!.value, ["body"]);
        if (issues.length) outcome = validationOutcome(issues);
      }
      // Made only for a line that is written: asking for the span makes it, and one nothing asked for costs less.
      const ids = () => ({ request_id: meta.id, trace_id: meta.spanOf(route).traceId });
      if (outcome.internal !== undefined) log.error("unhandled error", { ...ids(), error: outcome.internal });
      // One of our errors may carry what a library or an upstream said: the log reads it, the caller reads our message.
      else if (error instanceof ServiceError && error.cause !== undefined)
        log.warn("request failed", { ...ids(), code: error.code, cause: error.cause });
      meta.errorCode =
        typeof outcome.body.error === "string" ? outcome.body.error : outcome.status === 422 ? "validation_failed" : undefined;
      if (dialect) outcome = dialect(path, outcome, set.headers as Record<string, string | number | undefined>);
      set.status = outcome.status;
      set.headers["x-request-id"] = meta.id;
      Object.assign(set.headers, outcome.headers);
      return outcome.body;
    })
    .onAfterResponse({ as: "global" }, ({ request, set, path, route }) => {
      const meta = requestMeta(request);
      const status = statusNumber(set.status);
      const endedAt = performance.now();
      const ms = endedAt - meta.startedAt;
      // A path no route matched is counted and named as one, whatever it was: a scanner's paths never become series.
      const template = route || "unmatched";
      // Off (the default), metrics cost the request no label object.
      if (metricsEnabled()) countRequest(request.method, template, status, ms);
      const traceId = meta.endSpan(request.method, template, status, endedAt);
      log.info("request", {
        request_id: meta.id,
        trace_id: traceId,
        method: request.method,
        path,
        status,
        ms: Math.round(ms * 10) / 10,
        account_id: meta.caller?.accountId,
        key_id: meta.caller?.keyId,
        error: meta.errorCode,
        ...(meta.queued ? { queued_ms: meta.queued.waitedMs, queued_ahead: meta.queued.ahead } : {}),
      });
      meta.call?.finish(status);
    });
}

/** The request's latency, by route template, method and status class: its count is the requests' counter (metrics.ts). */
function countRequest(method: string, route: string, status: number, ms: number): void {
  const labels = { route, method, status_class: statusClass(status) };
  metrics.httpDuration.observe(labels, ms / 1000);
}
