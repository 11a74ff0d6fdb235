import { afterEach, describe, expect, test } from "bun:test";
import { position, samplerFrom } from "./sampler.ts";
import { recordingSpans, type SpanRecord } from "./spans.ts";
import { NO_SPAN, requestSpan, rootSpan, tracingEnabled, useTracer } from "./trace.ts";
import { parseTraceparent, parseTracestate, traceIdOf } from "./trace-context.ts";
import { tracingWanted } from "./tracing.ts";
import { answeredRequest } from "../../test/helpers/otlp-traces.ts";

const INCOMING = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

/** Tracing on, every span that ends kept in memory. */
function traced(env: Record<string, string> = {}, untracedRoutes: string[] = []): SpanRecord[] {
  const finished: SpanRecord[] = [];
  useTracer(recordingSpans(samplerFrom(env), (span) => finished.push(span), new Set(untracedRoutes)));
  return finished;
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
    expect(traceIdOf("00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01")).toBeUndefined();
  });

  test("of a later version is read for what version 00 knows; version ff is invalid", () => {
    expect(parseTraceparent("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-more")).toEqual({
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: "b7ad6b7169203331",
      sampled: true,
    });
    expect(parseTraceparent("ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")).toBeUndefined();
    expect(parseTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00")?.sampled).toBe(false);
    expect(parseTraceparent("x".repeat(10_000))).toBeUndefined();
  });

  test("a tracestate is kept when bounded and printable", () => {
    expect(parseTracestate(" rojo=00f067aa0ba902b7,congo=t61rcWkgMzE ")).toBe("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE");
    expect(parseTracestate("a=b\u0000")).toBeUndefined();
    expect(parseTracestate("a=b".repeat(200))).toBeUndefined();
    expect(parseTracestate(Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(","))).toBeUndefined();
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
    const finished = traced();
    const span = requestSpan(new Request("http://x/v1/search", { method: "POST", headers: { traceparent: INCOMING } }));
    expect(span.traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    const run = span.child("research.run", { kind: "search", skipped: undefined });
    const call = run.child("provider.search", { provider: "brave" }, "client");
    const header = call.traceparent()!;
    expect(header).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[\da-f]{16}-01$/);
    call.fail("timeout");
    call.end();
    run.end();
    const answered = answeredRequest({ method: "POST", route: "/v1/search" });
    span.endAnswered(answered);
    span.end(); // a second end is not a second span
    span.endAnswered(answered);
    const byName = new Map(finished.map((s) => [s.name, s]));
    expect(finished).toHaveLength(3);
    const request = byName.get("POST /v1/search")!;
    const runSpan = byName.get("research.run")!;
    const provider = byName.get("provider.search")!;
    expect(request.parentSpanId).toBe("b7ad6b7169203331");
    expect(request.kind).toBe(2);
    expect(runSpan.parentSpanId).toBe(request.spanId);
    expect(provider.parentSpanId).toBe(runSpan.spanId);
    expect(provider.kind).toBe(3);
    expect(header.split("-")[2]).toBe(provider.spanId);
    expect(provider.attributes).toEqual({ provider: "brave" });
    expect(runSpan.attributes).toEqual({ kind: "search" });
    expect(provider.failure).toBe("timeout");
    expect(runSpan.failure).toBeUndefined();
    expect(request.endMs).toBeGreaterThanOrEqual(request.startMs);
    expect(request.startMs).toBeGreaterThan(Date.now() - 60_000);
  });

  test("a caller's unsampled trace is not recorded, and goes on unsampled", () => {
    const finished = traced();
    const span = requestSpan(new Request("http://x/", { headers: { traceparent: INCOMING.replace(/01$/, "00") } }));
    expect(span.recording).toBe(false);
    expect(span.traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(span.child("research.run").traceparent()).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[\da-f]{16}-00$/);
    span.end();
    expect(finished).toEqual([]);
  });

  test("a new trace the sampler leaves out has no trace id for the log, and passes on the id it was judged by, unsampled", () => {
    const finished = traced({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.5" });
    const spans = Array.from({ length: 64 }, () => requestSpan(new Request("http://x/")));
    const left = spans.filter((span) => !span.recording);
    expect(left.length).toBeGreaterThan(8);
    expect(spans.length - left.length).toBeGreaterThan(8);
    for (const span of left) {
      expect(span.traceId).toBeUndefined();
      const passed = span.child("research.run").traceparent()!;
      expect(passed).toMatch(/^00-[\da-f]{32}-[\da-f]{16}-00$/);
      // The same parent for every call of the request, and an id the same ratio leaves out wherever it is judged.
      expect(span.traceparent()).toBe(passed);
      expect(position(passed.slice(3, 35))).toBeGreaterThanOrEqual(0.5);
      span.end();
    }
    for (const span of spans.filter((s) => s.recording)) expect(position(span.traceId!)).toBeLessThan(0.5);
    expect(finished).toEqual([]);
  });

  test("the health probes are not traced, by their route, but keep the caller's trace id for the log", () => {
    const finished = traced({}, ["/healthz"]);
    expect(requestSpan(new Request("http://x:8080/healthz"), 0, "/healthz")).toBe(NO_SPAN);
    expect(requestSpan(new Request("http://x/healthz?full=1", { headers: { traceparent: INCOMING } }), 0, "/healthz").traceId).toBe(
      "0af7651916cd43dd8448eb211c80319c",
    );
    expect(requestSpan(new Request("http://x/healthzz"), 0, "/healthzz").recording).toBe(true);
    // Asked for before its route is known (a route's own work makes children): not a probe, and traced.
    expect(requestSpan(new Request("http://x/v1/search")).recording).toBe(true);
    expect(finished).toEqual([]);
  });

  test("a request's span starts and ends at the times its request read, on the epoch's clock", () => {
    const finished = traced();
    const arrived = performance.now() - 5;
    const span = requestSpan(new Request("http://x/v1/account"), arrived);
    span.end(arrived + 2.5);
    expect(finished).toHaveLength(1);
    expect(finished[0]!.startMs).toBeCloseTo(performance.timeOrigin + arrived, 6);
    expect(finished[0]!.endMs - finished[0]!.startMs).toBeCloseTo(2.5, 6);
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
    expect(samplerFrom({}).description).toBe("parentbased_always_on");
    expect(samplerFrom({ OTEL_TRACES_SAMPLER: "always_off" }).description).toBe("always_off");
    expect(samplerFrom({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.25" }).description).toBe("traceidratio 0.25");
    // An argument out of range is the whole, not an error at start.
    expect(samplerFrom({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "7" }).description).toBe("traceidratio 1");
    expect(samplerFrom({ OTEL_TRACES_SAMPLER: "nonsense" }).description).toBe("parentbased_always_on");
  });

  test("a trace id's position is the same read from its bytes as from its text", () => {
    for (const hex of [
      "00000000000000000000000000000001",
      "0af7651916cd43dd8448eb211c80319c",
      "ffffffffffffffffffffffffffffffff",
      "000000000000000000f0000000000000",
    ]) {
      const bytes = Uint8Array.from(hex.match(/../g)!, (pair) => Number.parseInt(pair, 16));
      expect(position(bytes)).toBe(position(hex));
    }
    expect(position("ffffffffffffffffffffffffffffffff")).toBeLessThan(1);
    expect(position("0000000000000000000fffffffffffff")).toBe((2 ** 52 - 1) / 2 ** 52);
  });

  test("samplers decide as named: a parent's flag first where parent-based, a ratio from the trace id", () => {
    // Trace ids whose random right half runs evenly over its range.
    const id = (n: number) =>
      `0af7651916cd43dd844${Math.floor(n * 2 ** 52)
        .toString(16)
        .padStart(13, "0")}`;
    const ratio = samplerFrom({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.25" });
    const kept = Array.from({ length: 1000 }, (_, i) => id(i / 1000)).filter((t) => ratio.sample(t, undefined)).length;
    expect(kept).toBeGreaterThan(230);
    expect(kept).toBeLessThan(270);
    expect(ratio.sample(id(0.9), true)).toBe(true);
    expect(ratio.sample(id(0.1), false)).toBe(false);
    expect(ratio.sample(id(0.1), undefined)).toBe(true);
    expect(ratio.sample(id(0.3), undefined)).toBe(false);
    const plain = samplerFrom({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" });
    expect(plain.sample(id(0.1), true)).toBe(false);
    expect(samplerFrom({ OTEL_TRACES_SAMPLER: "parentbased_always_off" }).sample(id(1), undefined)).toBe(false);
    expect(samplerFrom({ OTEL_TRACES_SAMPLER: "parentbased_always_off" }).sample(id(1), true)).toBe(true);
    expect(samplerFrom({ OTEL_TRACES_SAMPLER: "always_on" }).sample(id(1), false)).toBe(true);
    expect(samplerFrom({}).sample(id(1), false)).toBe(false);
  });
});
