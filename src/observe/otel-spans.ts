/**
 * TraceSpan over OpenTelemetry's API: loaded by tracing.ts only when tracing
 * is on, so a server that does not trace never loads it. W3C trace context
 * in (a request's `traceparent` and `tracestate`) and out (a provider call's
 * headers) goes through the SDK's own propagator.
 */
import { ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import type { SpanAttributes, SpanMaker, TraceSpan } from "./trace.ts";

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

function defined(attributes: SpanAttributes | undefined): Record<string, string | number | boolean> | undefined {
  if (!attributes) return undefined;
  const out: Record<string, string | number | boolean> = {};
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

class OtelSpan implements TraceSpan {
  constructor(
    private readonly tracer: Tracer,
    private readonly span: Span,
  ) {}
  /** False for a span the sampler left out: its children are left out too, but its trace context still travels. */
  get recording(): boolean {
    return this.span.isRecording();
  }
  get traceId(): string {
    return this.span.spanContext().traceId;
  }
  child(name: string, attributes?: SpanAttributes, kind: "internal" | "client" = "internal"): TraceSpan {
    const span = this.tracer.startSpan(
      name,
      { kind: kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes: defined(attributes) },
      trace.setSpan(ROOT_CONTEXT, this.span),
    );
    return new OtelSpan(this.tracer, span);
  }
  set(attributes: SpanAttributes): void {
    const values = defined(attributes);
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
  rename(name: string): void {
    this.span.updateName(name);
  }
}

export function otelSpans(tracer: Tracer): SpanMaker {
  return {
    request(request) {
      const parent = propagator.extract(ROOT_CONTEXT, request.headers, headerGetter);
      const span = tracer.startSpan(
        request.method,
        { kind: SpanKind.SERVER, attributes: { "http.request.method": request.method } },
        parent,
      );
      return new OtelSpan(tracer, span);
    },
    root(name, attributes) {
      return new OtelSpan(tracer, tracer.startSpan(name, { attributes: defined(attributes) }, ROOT_CONTEXT));
    },
  };
}
