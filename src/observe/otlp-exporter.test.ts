import { afterAll, describe, expect, test } from "bun:test";
import { answeredRequest, decodeProtobufTraces, type ExportedTraces } from "../../test/helpers/otlp-traces.ts";
import { nanoHalves, type Origin, otlpJson, otlpProtobuf, ProtobufBatch } from "./otlp-encode.ts";
import { batchLimits, OtlpExporter, otlpTarget } from "./otlp-exporter.ts";
import { samplerFrom } from "./sampler.ts";
import { recordingSpans, type SpanRecord } from "./spans.ts";
import { rootSpan } from "./trace.ts";
import { startTracing } from "./tracing.ts";

const ORIGIN: Origin = { resource: { "service.name": "agentic-search", "process.worker": 2 }, scope: "agentic-search" };

/** Real spans, made by the span maker the server uses: a request under a caller's trace, a failed provider call under it. */
function spans(): SpanRecord[] {
  const finished: SpanRecord[] = [];
  const maker = recordingSpans(samplerFrom({}), (span) => finished.push(span));
  const request = maker.request(
    new Request("http://x/v1/search", {
      method: "POST",
      headers: { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", tracestate: "vendor=abc" },
    }),
  );
  request.set({ "search.hedged": true, "http.route": "/v1/other", skipped: undefined });
  const call = request.child("provider.search", { "search.provider": 'br"ave ✓', "search.hedged": false, ratio: 0.5, delta: -3 }, "client");
  call.fail("timeout");
  call.end();
  request.endAnswered(answeredRequest({ method: "POST", route: "/v1/search", requestId: "req_1" }));
  return finished;
}

/** The two spans of `spans()` as an export decodes them, by name. */
function byName(body: ExportedTraces): Map<string, Record<string, unknown>> {
  const [resource] = body.resourceSpans!;
  expect(resource!.resource!.attributes).toContainEqual({ key: "service.name", value: { stringValue: "agentic-search" } });
  const [scope] = resource!.scopeSpans!;
  expect(scope!.scope!.name).toBe("agentic-search");
  return new Map(scope!.spans!.map((s) => [s.name as string, s]));
}

function expectTheSpans(body: ExportedTraces, made: SpanRecord[]): void {
  const spansByName = byName(body);
  const server = spansByName.get("POST /v1/search")!;
  const client = spansByName.get("provider.search")!;
  const parent = made.find((s) => s.name === "POST /v1/search")!;
  expect(server.traceId).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
  expect(server.spanId).toBe(parent.spanId);
  expect(server.parentSpanId).toBe("00f067aa0ba902b7");
  expect(server.traceState).toBe("vendor=abc");
  expect(client.parentSpanId).toBe(parent.spanId);
  expect(server.kind).toBe(2);
  expect(client.kind).toBe(3);
  // What the answer set, then what was set on the span besides (the answer's route wins over one set before), then the request id.
  expect(server.attributes).toEqual([
    { key: "http.request.method", value: { stringValue: "POST" } },
    { key: "http.route", value: { stringValue: "/v1/search" } },
    { key: "http.response.status_code", value: { intValue: "200" } },
    { key: "search.hedged", value: { boolValue: true } },
    { key: "request.id", value: { stringValue: "req_1" } },
  ]);
  expect(client.attributes).toEqual([
    { key: "search.provider", value: { stringValue: 'br"ave ✓' } },
    { key: "search.hedged", value: { boolValue: false } },
    { key: "ratio", value: { doubleValue: 0.5 } },
    { key: "delta", value: { intValue: "-3" } },
  ]);
  expect(client.status).toEqual({ code: 2, message: "timeout" });
  expect(server.status).toBeUndefined();
  // The instant the span holds, to the nanosecond (within the double's grain), without BigInt on the way.
  const start = BigInt(server.startTimeUnixNano as string);
  const expected = BigInt(Math.floor(parent.startMs)) * 1_000_000n + BigInt(Math.round((parent.startMs % 1) * 1e6));
  expect(start - expected).toBeLessThanOrEqual(1n);
  expect(expected - start).toBeLessThanOrEqual(1n);
  expect(BigInt(server.endTimeUnixNano as string)).toBeGreaterThanOrEqual(start);
}

describe("the target", () => {
  test("the traces endpoint wins as written; the base endpoint gets /v1/traces", () => {
    expect(otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" }).url).toBe("http://c:4318/v1/traces");
    expect(otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t/x" }).url).toBe(
      "http://t/x",
    );
  });

  test("headers, timeout, compression and protocol from the standard variables, the traces-specific ones first", () => {
    const target = otlpTarget({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://c",
      OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20abc, x-team = search ,broken,=novalue,x-cut=a%0D%0Ab,bad name=1,",
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: "2500",
      OTEL_EXPORTER_OTLP_COMPRESSION: "GZIP",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
    });
    expect(target.headers).toEqual({ authorization: "Basic abc", "x-team": "search" });
    // Left out and named (never with their values): no "=", no name, a value that would end the line, a name not a token.
    expect(target.refused).toEqual(["broken", "(no name)", "x-cut", "bad name"]);
    expect(target.timeoutMs).toBe(2500);
    expect(target.gzip).toBe(true);
    expect(target.json).toBe(true);
    expect(otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_EXPORTER_OTLP_TIMEOUT: "-1" }).timeoutMs).toBe(10_000);
    // Protobuf is the default, and what a gRPC setting gets (gRPC itself is not spoken).
    expect(otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c" }).json).toBe(false);
    expect(otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }).json).toBe(false);
  });
});

describe("the batches", () => {
  test("their queue, size and delay from the batch span processor's variables; anything else is the default", () => {
    expect(batchLimits({})).toEqual({ maxQueue: 4096, batch: 512, delayMs: 1000 });
    expect(batchLimits({ OTEL_BSP_MAX_QUEUE_SIZE: "8192", OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "2048", OTEL_BSP_SCHEDULE_DELAY: "0" })).toEqual({
      maxQueue: 8192,
      batch: 2048,
      delayMs: 0,
    });
    // A batch larger than the queue is the queue.
    expect(batchLimits({ OTEL_BSP_MAX_QUEUE_SIZE: "100", OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "512" })).toEqual({
      maxQueue: 100,
      batch: 100,
      delayMs: 1000,
    });
    for (const bad of ["", " ", "0", "-5", "1.5", "1e9", "lots", "0x10", "Infinity"])
      expect(batchLimits({ OTEL_BSP_MAX_QUEUE_SIZE: bad, OTEL_BSP_MAX_EXPORT_BATCH_SIZE: bad })).toEqual({
        maxQueue: 4096,
        batch: 512,
        delayMs: 1000,
      });
    expect(batchLimits({ OTEL_BSP_SCHEDULE_DELAY: "-1" }).delayMs).toBe(1000);
    expect(batchLimits({ OTEL_BSP_SCHEDULE_DELAY: "3600000" }).delayMs).toBe(1000);
  });
});

describe("the encodings", () => {
  test("protobuf, as OTLP's own schema decodes it: ids, parents, kinds, times, typed attributes, the status", () => {
    const made = spans();
    expectTheSpans(decodeProtobufTraces(otlpProtobuf(made, ORIGIN)), made);
  });

  test("JSON, the same spans in OTLP/JSON", () => {
    const made = spans();
    expectTheSpans(JSON.parse(otlpJson(made, ORIGIN)), made);
  });

  test("a batch longer than a varint's byte, and spans with long names, keep their lengths", () => {
    const made = Array.from({ length: 600 }, () => spans()).flat();
    // A made span past two length bytes, first: every span after it is written past it.
    recordingSpans(samplerFrom({}), (span) => made.unshift(span))
      .root("x".repeat(20_000))
      .end();
    const decoded = decodeProtobufTraces(otlpProtobuf(made, ORIGIN));
    const all = decoded.resourceSpans![0]!.scopeSpans![0]!.spans!;
    expect(all).toHaveLength(1201);
    expect(all[0]!.name).toBe("x".repeat(20_000));
    expect(all.at(-1)!.name).toBe("POST /v1/search");
  });

  test("a batch encoded span by span and reused once sent: each request holds its own spans under the whole resource", () => {
    // A resource longer than a length's one byte, so the head written last before the first span needs its full room.
    const resource = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`resource.attribute.${i}`, `value ${i}`]));
    const batch = new ProtobufBatch({ resource, scope: "agentic-search" });
    for (const count of [3, 1, 600]) {
      batch.reset();
      const made = Array.from({ length: count }, () => spans()).flat();
      for (const span of made) batch.add(span);
      expect(batch.spans).toBe(made.length);
      const [sent] = decodeProtobufTraces(batch.body()).resourceSpans!;
      expect(sent!.resource!.attributes).toHaveLength(40);
      expect(sent!.resource!.attributes).toContainEqual({ key: "resource.attribute.39", value: { stringValue: "value 39" } });
      expect(sent!.scopeSpans![0]!.spans!.map((span) => span.spanId)).toEqual(made.map((span) => span.spanId));
    }
  });

  test("attribute values at every length's edge decode as set: short ones written in one pass, the rest field by field", () => {
    const values: Record<string, string | number | boolean> = {
      empty: "",
      short: "127.0.0.1",
      "at the edge": "x".repeat(100),
      long: "y".repeat(300),
      "not ascii": "café",
      yes: true,
      no: false,
      zero: 0,
      "one byte": 127,
      "two bytes": 128,
      "two bytes, last": 16_383,
      "three bytes": 16_384,
      "three bytes, last": 2_097_151,
      "four bytes": 2_097_152,
      negative: -1,
      fraction: 2.5,
      [`${"k".repeat(120)}`]: "a key too long for one length byte with its value",
    };
    const finished: SpanRecord[] = [];
    recordingSpans(samplerFrom({}), (span) => finished.push(span))
      .root("attributes", values)
      .end();
    const [decoded] = decodeProtobufTraces(otlpProtobuf(finished, ORIGIN)).resourceSpans![0]!.scopeSpans![0]!.spans!;
    const read = Object.fromEntries(
      (decoded!.attributes as { key: string; value: Record<string, unknown> }[]).map(({ key, value }) => {
        const [kind, given] = Object.entries(value)[0]!;
        return [key, kind === "intValue" ? Number(given) : given];
      }),
    );
    expect(read).toEqual(values);
    // The protobuf decoder read every field to the span's end: lengths written up front matched what followed.
    expect(decoded!.name).toBe("attributes");
  });

  test("nanoseconds from milliseconds are exact across the 32-bit boundary", () => {
    // Besides the boundaries: a fraction that rounds up to a whole millisecond, the most a double's ms can hold to a
    // microsecond's fraction, and a spread of times from 1970 to 2100 (a fixed stride, so the test is the same each run).
    const spread = Array.from({ length: 10_000 }, (_, i) => i * 410_244_480.123_457 + (i % 7) / 7);
    for (const ms of [0, 1, 4294.967296, 1.999_999_9, 2 ** 21, 2 ** 32 - 0.5, 1_700_000_000_000.5, 1_800_000_000_123.456, ...spread]) {
      const [low, high] = nanoHalves(ms);
      const whole = BigInt(Math.floor(ms)) * 1_000_000n + BigInt(Math.round((ms - Math.floor(ms)) * 1e6));
      expect(BigInt(high) * 4_294_967_296n + BigInt(low)).toBe(whole);
    }
  });
});

describe("sending", () => {
  const received: { headers: Headers; body: ExportedTraces }[] = [];
  let status = 200;
  const collector = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      let raw = new Uint8Array(await request.arrayBuffer());
      if (request.headers.get("content-encoding") === "gzip") raw = Bun.gunzipSync(raw);
      const json = (request.headers.get("content-type") ?? "").includes("json");
      received.push({ headers: request.headers, body: json ? JSON.parse(new TextDecoder().decode(raw)) : decodeProtobufTraces(raw) });
      return new Response(status === 200 ? "{}" : "collector says: secret internals", { status });
    },
  });
  afterAll(() => collector.stop(true));
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.port}`, OTEL_EXPORTER_OTLP_HEADERS: "x-team=search" };
  const limits = { maxQueue: 8, batch: 4, delayMs: 50 };

  test("posts batches with their headers, as protobuf or JSON, gzipped when asked", async () => {
    for (const [protocol, compression, type] of [
      ["http/protobuf", "none", "application/x-protobuf"],
      ["http/protobuf", "gzip", "application/x-protobuf"],
      ["http/json", "gzip", "application/json"],
    ] as const) {
      received.length = 0;
      const target = otlpTarget({ ...env, OTEL_EXPORTER_OTLP_COMPRESSION: compression, OTEL_EXPORTER_OTLP_PROTOCOL: protocol });
      const exporter = new OtlpExporter(target, ORIGIN, () => {}, limits);
      const made = spans();
      for (const span of made) exporter.add(span);
      await exporter.flush();
      expect(received).toHaveLength(1);
      expect(received[0]!.headers.get("x-team")).toBe("search");
      expect(received[0]!.headers.get("content-type")).toBe(type);
      expectTheSpans(received[0]!.body, made);
    }
  });

  test("a full batch leaves at once, the rest after the delay; a full queue drops spans and says how many", async () => {
    received.length = 0;
    const reasons: string[] = [];
    const exporter = new OtlpExporter(otlpTarget(env), ORIGIN, (reason) => reasons.push(reason), limits);
    for (const span of [...spans(), ...spans()]) exporter.add(span); // 4: one full batch
    await Bun.sleep(20);
    expect(received).toHaveLength(1);
    exporter.add(spans()[0]!);
    await Bun.sleep(20);
    expect(received).toHaveLength(1); // waiting for company
    await Bun.sleep(80);
    expect(received).toHaveLength(2);
    // Eleven at once into a queue of eight: three are dropped, and the next export says so.
    for (let i = 0; i < 11; i++) exporter.add(spans()[0]!);
    await exporter.flush();
    const sent = received.slice(2).reduce((n, r) => n + r.body.resourceSpans![0]!.scopeSpans![0]!.spans!.length, 0);
    expect(sent).toBe(8);
    expect(reasons).toEqual(["3 spans dropped: they came faster than the collector took them"]);
  });

  test("tracing started from the environment batches as OTEL_BSP_* say: a batch of two leaves at once, not after the delay", async () => {
    received.length = 0;
    const tracing = startTracing({ ...env, OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "2", OTEL_BSP_SCHEDULE_DELAY: "60000" });
    try {
      rootSpan("first").end();
      await Bun.sleep(30);
      expect(received).toHaveLength(0); // one span waits for its batch's second
      rootSpan("second").end();
      for (let i = 0; i < 50 && received.length === 0; i++) await Bun.sleep(10);
      expect(received.map((r) => r.body.resourceSpans![0]!.scopeSpans![0]!.spans!.map((span) => span.name))).toEqual([["first", "second"]]);
    } finally {
      await tracing!.shutdown();
    }
  });

  test("an http: collector, its scheme written in any case, is posted to over the service's own connection (no user agent)", async () => {
    for (const endpoint of [`http://127.0.0.1:${collector.port}`, `HTTP://127.0.0.1:${collector.port}`]) {
      received.length = 0;
      const exporter = new OtlpExporter(otlpTarget({ ...env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }), ORIGIN, () => {}, limits);
      for (const span of spans()) exporter.add(span);
      await exporter.shutdown();
      expect(received).toHaveLength(1);
      // fetch says it is Bun; the connection says nothing of itself.
      expect(received[0]!.headers.get("user-agent")).toBeNull();
    }
    const reasons: string[] = [];
    const broken = new OtlpExporter(otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: "http//127.0.0.1" }), ORIGIN, (r) => reasons.push(r));
    for (const span of spans()) broken.add(span);
    await broken.shutdown();
    expect(reasons).toEqual(["the collector could not be reached"]);
  });

  test("a refusing or absent collector loses the batch in our words, never its own", async () => {
    status = 503;
    const reasons: string[] = [];
    const refused = new OtlpExporter(otlpTarget(env), ORIGIN, (reason) => reasons.push(reason), limits);
    for (const span of spans()) refused.add(span);
    await refused.flush();
    status = 200;
    const absent = new OtlpExporter(otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" }), ORIGIN, (reason) =>
      reasons.push(reason),
    );
    for (const span of spans()) absent.add(span);
    await absent.shutdown();
    expect(reasons).toEqual(["the collector answered 503", "the collector could not be reached"]);
    // Shut down, it takes nothing more.
    received.length = 0;
    const closed = new OtlpExporter(otlpTarget(env), ORIGIN, () => {}, limits);
    await closed.shutdown();
    for (const span of spans()) closed.add(span);
    await closed.flush();
    expect(received).toHaveLength(0);
  });
});
