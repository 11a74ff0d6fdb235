import { afterAll, describe, expect, test } from "bun:test";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { OtlpJsonExporter, otlpJson, otlpTarget } from "./otlp-json-exporter.ts";

/** Real spans, made by the SDK the server uses, caught in memory. */
function spans(): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": "agentic-search" }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
  });
  const tracer = provider.getTracer("agentic-search");
  const parent = tracer.startSpan("POST /v1/search", { kind: SpanKind.SERVER, attributes: { "http.response.status_code": 200 } });
  const { trace, ROOT_CONTEXT } = require("@opentelemetry/api") as typeof import("@opentelemetry/api");
  const child = tracer.startSpan(
    "provider.search",
    { kind: SpanKind.CLIENT, attributes: { "search.provider": 'br"ave', "search.hedged": false, ratio: 0.5, list: ["a", "b"] } },
    trace.setSpan(ROOT_CONTEXT, parent),
  );
  child.setStatus({ code: SpanStatusCode.ERROR, message: "timeout" });
  child.end();
  parent.end();
  return memory.getFinishedSpans();
}

describe("the target", () => {
  test("the traces endpoint wins as written; the base endpoint gets /v1/traces", () => {
    expect(otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" }).url).toBe("http://c:4318/v1/traces");
    expect(otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t/x" }).url).toBe(
      "http://t/x",
    );
  });

  test("headers, timeout and compression from the standard variables, the traces-specific ones first", () => {
    const target = otlpTarget({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://c",
      OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20abc, x-team = search ,broken,=novalue",
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: "2500",
      OTEL_EXPORTER_OTLP_COMPRESSION: "GZIP",
    });
    expect(target.headers).toEqual({ authorization: "Basic abc", "x-team": "search" });
    expect(target.timeoutMs).toBe(2500);
    expect(target.gzip).toBe(true);
    expect(otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_EXPORTER_OTLP_TIMEOUT: "-1" }).timeoutMs).toBe(10_000);
  });
});

describe("the JSON", () => {
  test("is OTLP's: grouped by resource and scope, hex ids, kinds from 1, nanosecond strings, typed attributes", () => {
    const made = spans();
    const body = JSON.parse(otlpJson(made));
    const [resource] = body.resourceSpans;
    expect(resource.resource.attributes).toContainEqual({ key: "service.name", value: { stringValue: "agentic-search" } });
    const [scope] = resource.scopeSpans;
    expect(scope.scope.name).toBe("agentic-search");
    const byName = new Map(scope.spans.map((s: { name: string }) => [s.name, s]));
    const server = byName.get("POST /v1/search") as Record<string, unknown>;
    const client = byName.get("provider.search") as Record<string, unknown>;
    const parent = made.find((s) => s.name === "POST /v1/search")!;
    expect(server.traceId).toBe(parent.spanContext().traceId);
    expect(server.parentSpanId).toBeUndefined();
    expect(client.parentSpanId).toBe(parent.spanContext().spanId);
    expect(server.kind).toBe(2);
    expect(client.kind).toBe(3);
    expect(server.attributes).toEqual([{ key: "http.response.status_code", value: { intValue: "200" } }]);
    expect(client.attributes).toEqual([
      { key: "search.provider", value: { stringValue: 'br"ave' } },
      { key: "search.hedged", value: { boolValue: false } },
      { key: "ratio", value: { doubleValue: 0.5 } },
      { key: "list", value: { arrayValue: { values: [{ stringValue: "a" }, { stringValue: "b" }] } } },
    ]);
    expect(client.status).toEqual({ code: 2, message: "timeout" });
    // The same instant the SDK holds, to the nanosecond, without BigInt.
    const [seconds, nanos] = parent.startTime;
    expect(server.startTimeUnixNano).toBe((BigInt(seconds) * 1_000_000_000n + BigInt(nanos)).toString());
    expect(BigInt(server.endTimeUnixNano as string)).toBeGreaterThanOrEqual(BigInt(server.startTimeUnixNano as string));
  });
});

describe("sending", () => {
  const received: { headers: Headers; body: unknown }[] = [];
  let status = 200;
  const collector = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const raw = new Uint8Array(await request.arrayBuffer());
      const text =
        request.headers.get("content-encoding") === "gzip" ? new TextDecoder().decode(Bun.gunzipSync(raw)) : new TextDecoder().decode(raw);
      received.push({ headers: request.headers, body: JSON.parse(text) });
      return new Response(status === 200 ? "{}" : "collector says: secret internals", { status });
    },
  });
  afterAll(() => collector.stop(true));
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.port}`, OTEL_EXPORTER_OTLP_HEADERS: "x-team=search" };

  test("posts a batch as JSON with its headers, gzipped when asked", async () => {
    for (const compression of ["none", "gzip"]) {
      received.length = 0;
      const exporter = new OtlpJsonExporter(otlpTarget({ ...env, OTEL_EXPORTER_OTLP_COMPRESSION: compression }));
      const result = await new Promise<{ code: number }>((done) => exporter.export(spans(), done));
      expect(result.code).toBe(0);
      expect(received).toHaveLength(1);
      expect(received[0]!.headers.get("x-team")).toBe("search");
      expect(received[0]!.headers.get("content-type")).toBe("application/json");
      expect((received[0]!.body as { resourceSpans: unknown[] }).resourceSpans).toHaveLength(1);
    }
  });

  test("a refusing or absent collector fails the batch in our words, never its own", async () => {
    status = 503;
    const reasons: string[] = [];
    const refused = new OtlpJsonExporter(otlpTarget(env), (reason) => reasons.push(reason));
    expect((await new Promise<{ code: number }>((done) => refused.export(spans(), done))).code).toBe(1);
    status = 200;
    const absent = new OtlpJsonExporter(otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" }), (reason) =>
      reasons.push(reason),
    );
    expect((await new Promise<{ code: number }>((done) => absent.export(spans(), done))).code).toBe(1);
    expect(reasons).toEqual(["the collector answered 503", "the collector could not be reached"]);
    await absent.shutdown();
    expect((await new Promise<{ code: number }>((done) => absent.export(spans(), done))).code).toBe(1);
  });
});
