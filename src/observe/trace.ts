/**
 * Spans, as the code sees them: a request's span and its children (a run's
 * stages, each provider call and page read), passed down explicitly with the
 * work rather than found in an async context, so a child always has the
 * parent it was given, on any runtime. Recorded (spans.ts) and exported as
 * OTLP when tracing is on (tracing.ts); otherwise every span is NO_SPAN,
 * whose methods do nothing, and only the trace id a caller sent in is kept,
 * for the log.
 *
 * Attributes are the operator's (route, status, provider, bytes, cache
 * hit): never a prompt, a key, a URL's query or an account's id. Error
 * text is ours (a class or a code), never an upstream's.
 */
import { traceIdOf } from "./trace-context.ts";

export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export interface TraceSpan {
  /** The trace this span belongs to (32 hex digits), or undefined when there is none. */
  readonly traceId: string | undefined;
  /** Whether anything is recorded: false with tracing off, where a caller can skip building attributes. */
  readonly recording: boolean;
  /** A span inside this one; `client` for a call this process makes to another (a provider, a page). */
  child(name: string, attributes?: SpanAttributes, kind?: "internal" | "client"): TraceSpan;
  set(attributes: SpanAttributes): void;
  /** Marks the span failed, with our own word for why (a code or a class, never an upstream's text). */
  fail(reason: string): void;
  /** `at`: when it ended, as performance.now() read it, for a caller that has just read it; now when not given. */
  end(at?: number): void;
  /** The `traceparent` header for a call made under this span; undefined when tracing is off. */
  traceparent(): string | undefined;
  /**
   * Ends a request's span at its response, with what it answered: named by its route template (never its raw path),
   * with its status, its error code and the request's id, and failed when the status is 500 or more.
   */
  endAnswered(answer: AnsweredRequest): void;
}

/**
 * A request answered without anything asking for its span before the response (most requests: nothing they did
 * made a child span): what its span records, given all at once at its end.
 */
export interface AnsweredRequest {
  readonly method: string;
  /** Its route template, or "unmatched" when no route matched: never a raw path. */
  readonly route: string;
  readonly status: number;
  readonly requestId: string;
  /** Our error code, when it failed. */
  readonly errorType: string | undefined;
  /** When it arrived and when its response was sent, as performance.now() read them. */
  readonly startedAt: number;
  readonly endedAt: number;
}

/** What makes recording spans: spans.ts's, installed by tracing.ts once tracing is on. */
export interface SpanMaker {
  /**
   * A request's span: a child of the caller's when its `traceparent` is valid, else the root of a new trace.
   * `startedAt`: when the request arrived, as performance.now() read it (now when not given); `route`: its route
   * template, when known (a probe's is not traced).
   */
  request(request: Request, startedAt?: number, route?: string): TraceSpan;
  /** A span with no request around it. */
  root(name: string, attributes?: SpanAttributes): TraceSpan;
  /**
   * The span of a request answered without it having been made, recorded in one step when its trace is kept (the
   * same span `request` and `endAnswered` would make, without the span itself); its trace id, for the log.
   */
  answered(request: Request, answer: AnsweredRequest): string | undefined;
}

/** A span that records nothing; `traceId` is the one a caller sent in, if any. */
class Untraced implements TraceSpan {
  readonly recording = false;
  constructor(readonly traceId: string | undefined) {}
  child(): TraceSpan {
    return this;
  }
  set(): void {}
  fail(): void {}
  end(): void {}
  traceparent(): undefined {
    return undefined;
  }
  endAnswered(): void {}
}

export const NO_SPAN: TraceSpan = new Untraced(undefined);

let tracer: SpanMaker | null = null;

/** Called by tracing.ts once an exporter is set up: from then on requests are traced. */
export function useTracer(next: SpanMaker | null): void {
  tracer = next;
}

export function tracingEnabled(): boolean {
  return tracer !== null;
}

/**
 * The span of one request: a child of the caller's span when it sent a valid
 * `traceparent` (W3C trace context), a new trace otherwise. Named for its
 * method until its route is known (see `named`).
 */
export function requestSpan(request: Request, startedAt?: number, route?: string): TraceSpan {
  return tracer ? tracer.request(request, startedAt, route) : untracedSpan(request);
}

/** Records the span of a request nothing asked for before its response (see SpanMaker.answered); its trace id. */
export function answeredSpan(request: Request, answer: AnsweredRequest): string | undefined {
  return tracer ? tracer.answered(request, answer) : untracedSpan(request).traceId;
}

/** What a request that is not traced carries: nothing, or the trace id its caller sent, for the log. */
export function untracedSpan(request: Request): TraceSpan {
  const incoming = request.headers.get("traceparent");
  return incoming === null ? NO_SPAN : new Untraced(traceIdOf(incoming));
}

/** A span with no request around it (a task's run, a webhook delivery): a new trace. */
export function rootSpan(name: string, attributes?: SpanAttributes): TraceSpan {
  return tracer ? tracer.root(name, attributes) : NO_SPAN;
}
