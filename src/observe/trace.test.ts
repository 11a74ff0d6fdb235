import { afterEach, describe, expect, test } from "bun:test";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { otelSpans } from "./otel-spans.ts";
import { NO_SPAN, requestSpan, rootSpan, traceIdOf, tracingEnabled, useTracer } from "./trace.ts";
import { samplerFrom, tracingWanted } from "./tracing.ts";

const INCOMING = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

function traced() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  useTracer(otelSpans(provider.getTracer("test")));
  return exporter;
}

afterEach(() => useTracer(null));

describe("a traceparent", () => {
  test("gives its trace id when valid, nothing otherwise", () => {
    expect(traceIdOf(INCOMING)).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(traceIdOf(` ${INCOMING} `)).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(traceIdOf(null)).toBeUndefined();
    expect(traceIdOf("00-00000000000000000000000000000000-b7ad6b7169203331-01")).toBeUndefined();
    expect(traceIdOf("00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01")).toBeUndefined();
    expect(traceIdOf("garbage\u0000")).toBeUndefined();
    expect(traceIdOf(`${INCOMING}-extra`)).toBeUndefined();
  });
});

describe("with tracing off", () => {
  test("a request without a traceparent gets the one shared span, which records and propagates nothing", () => {
    expect(tracingEnabled()).toBe(false);
    const span = requestSpan(new Request("http://x/v1/account"));
    expect(span).toBe(NO_SPAN);
    expect(span.child("research.run")).toBe(NO_SPAN);
    expect(span.traceparent()).toBeUndefined();
    expect(span.traceId).toBeUndefined();
  });

  test("a request with a traceparent keeps its trace id for the log, and sends nothing on", () => {
    const span = requestSpan(new Request("http://x/", { headers: { traceparent: INCOMING } }));
    expect(span.traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(span.traceparent()).toBeUndefined();
    expect(span.child("x").traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(rootSpan("task.run")).toBe(NO_SPAN);
  });
});

describe("with tracing on", () => {
  test("a request's span continues the caller's trace, and its children hang under it", () => {
    const exporter = traced();
    const span = requestSpan(new Request("http://x/v1/search", { method: "POST", headers: { traceparent: INCOMING } }));
    expect(span.traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    const run = span.child("research.run", { kind: "search", skipped: undefined });
    const call = run.child("provider.search", { provider: "brave" }, "client");
    const header = call.traceparent()!;
    expect(header).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[\da-f]{16}-01$/);
    call.fail("timeout");
    call.end();
    run.end();
    span.rename("POST /v1/search");
    span.end();
    const spans = exporter.getFinishedSpans();
    const byName = new Map(spans.map((s) => [s.name, s]));
    const request = byName.get("POST /v1/search")!;
    const runSpan = byName.get("research.run")!;
    const provider = byName.get("provider.search")!;
    expect(request.parentSpanContext?.spanId).toBe("b7ad6b7169203331");
    expect(runSpan.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(provider.parentSpanContext?.spanId).toBe(runSpan.spanContext().spanId);
    expect(header.split("-")[2]).toBe(provider.spanContext().spanId);
    expect(provider.attributes).toEqual({ provider: "brave" });
    expect(runSpan.attributes).toEqual({ kind: "search" });
    expect(provider.status).toEqual({ code: 2, message: "timeout" });
  });

  test("a request without a traceparent, or with a broken one, starts a new trace", () => {
    traced();
    const fresh = requestSpan(new Request("http://x/"));
    const broken = requestSpan(new Request("http://x/", { headers: { traceparent: "00-zz-yy-01" } }));
    expect(fresh.traceId).toMatch(/^[\da-f]{32}$/);
    expect(broken.traceId).toMatch(/^[\da-f]{32}$/);
    expect(broken.traceId).not.toBe(fresh.traceId);
  });
});

describe("the environment", () => {
  test("traces only when an OTLP endpoint is set and nothing turns it off", () => {
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: " " })).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:4318/v1/traces" })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_SDK_DISABLED: "TRUE" })).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_TRACES_EXPORTER: "none" })).toBe(false);
  });

  test("reads the sampler the specification names, parent-based always-on otherwise", () => {
    expect(samplerFrom({}).toString()).toContain("ParentBased");
    expect(samplerFrom({ OTEL_TRACES_SAMPLER: "always_off" }).toString()).toContain("AlwaysOff");
    expect(samplerFrom({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.25" }).toString()).toContain("0.25");
    // An argument out of range is the whole, not an error at start.
    expect(samplerFrom({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "7" }).toString()).toContain("{1}");
    expect(samplerFrom({ OTEL_TRACES_SAMPLER: "nonsense" }).toString()).toContain("ParentBased");
  });
});
