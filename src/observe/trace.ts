/**
 * Spans, as the code sees them: a request's span and its children (a run's
 * stages, each provider call and page read), passed down explicitly with the
 * work rather than found in an async context, so a child always has the
 * parent it was given, on any runtime. Backed by OpenTelemetry when tracing
 * is on (tracing.ts); otherwise every span is NO_SPAN, whose methods do
 * nothing, and only the trace id a caller sent in is kept, for the log.
 *
 * Attributes are the operator's (route, status, provider, bytes, cache
 * hit): never a prompt, a key, a URL's query or an account's id. Error
 * text is ours (a class or a code), never an upstream's.
 */
import { ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";

export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export interface TraceSpan {
  /** The trace this span belongs to (32 hex digits), or undefined when there is none. */
  readonly traceId: string | undefined;
  /** A span inside this one; `client` for a call this process makes to another (a provider, a page). */
  child(name: string, attributes?: SpanAttributes, kind?: "internal" | "client"): TraceSpan;
  set(attributes: SpanAttributes): void;
  /** Marks the span failed, with our own word for why (a code or a class, never an upstream's text). */
  fail(reason: string): void;
  end(): void;
  /** The `traceparent` header for a call made under this span; undefined when tracing is off. */
  traceparent(): string | undefined;
}

/** A span that records nothing; `traceId` is the one a caller sent in, if any. */
class Untraced implements TraceSpan {
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
}

export const NO_SPAN: TraceSpan = new Untraced(undefined);

const propagator = new W3CTraceContextPropagator();
const headerGetter = {
  get: (carrier: Headers, key: string) => carrier.get(key) ?? undefined,
  keys: (carrier: Headers) => [...carrier.keys()],
};
const recordSetter = {
  set: (carrier: Record<string, string>, key: string, value: string) => {
    carrier[key] = value;
  },
};

function clean(attributes: SpanAttributes | undefined): Record<string, string | number | boolean> | undefined {
  if (!attributes) return undefined;
  const out: Record<string, string | number | boolean> = {};
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

class Traced implements TraceSpan {
  constructor(
    private readonly tracer: Tracer,
    readonly span: Span,
  ) {}
  get traceId(): string {
    return this.span.spanContext().traceId;
  }
  child(name: string, attributes?: SpanAttributes, kind: "internal" | "client" = "internal"): TraceSpan {
    const parent = trace.setSpan(ROOT_CONTEXT, this.span);
    const span = this.tracer.startSpan(
      name,
      { kind: kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes: clean(attributes) },
      parent,
    );
    return new Traced(this.tracer, span);
  }
  set(attributes: SpanAttributes): void {
    const values = clean(attributes);
    if (values) this.span.setAttributes(values);
  }
  fail(reason: string): void {
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
  }
  end(): void {
    this.span.end();
  }
  traceparent(): string | undefined {
    const carrier: Record<string, string> = {};
    propagator.inject(trace.setSpan(ROOT_CONTEXT, this.span), carrier, recordSetter);
    return carrier.traceparent;
  }
}

let tracer: Tracer | null = null;

/** Called by tracing.ts once an exporter is set up: from then on requests are traced. */
export function useTracer(next: Tracer | null): void {
  tracer = next;
}

export function tracingEnabled(): boolean {
  return tracer !== null;
}

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/;

/** The trace id of a valid W3C `traceparent`, else undefined (an all-zero id is invalid). */
export function traceIdOf(traceparent: string | null): string | undefined {
  if (!traceparent) return undefined;
  const id = TRACEPARENT.exec(traceparent.trim())?.[1];
  return id && id !== "00000000000000000000000000000000" ? id : undefined;
}

/**
 * The span of one request: a child of the caller's span when it sent a valid
 * `traceparent` (W3C trace context), a new trace otherwise. Named for its
 * method until its route is known (see `named`).
 */
export function requestSpan(request: Request): TraceSpan {
  if (!tracer) {
    const incoming = request.headers.get("traceparent");
    return incoming === null ? NO_SPAN : new Untraced(traceIdOf(incoming));
  }
  const parent = propagator.extract(ROOT_CONTEXT, request.headers, headerGetter);
  const span = tracer.startSpan(request.method, { kind: SpanKind.SERVER, attributes: { "http.request.method": request.method } }, parent);
  return new Traced(tracer, span);
}

/** Names a request's span once its route template is known: `GET /v1/keys/:id`, never the raw path. */
export function nameSpan(span: TraceSpan, name: string): void {
  if (span instanceof Traced) span.span.updateName(name);
}

/** A span with no request around it (a task's run, a webhook delivery): a new trace. */
export function rootSpan(name: string, attributes?: SpanAttributes): TraceSpan {
  if (!tracer) return NO_SPAN;
  return new Traced(tracer, tracer.startSpan(name, { attributes: clean(attributes) }, ROOT_CONTEXT));
}
