import { describe, expect, test } from "bun:test";
import { answeredRequest, decodeProtobufTraces } from "../../test/helpers/otlp-traces.ts";
import { JsonBatch, type Origin, ProtobufBatch } from "./otlp-encode.ts";
import { samplerFrom } from "./sampler.ts";
import { type AnsweredSink, recordingSpans, type SpanRecord } from "./spans.ts";
import type { AnsweredRequest } from "./trace.ts";

const ORIGIN: Origin = { resource: { "service.name": "agentic-search" }, scope: "agentic-search" };
const CALLER = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

const bytesOf = (hex: string) => Uint8Array.from(hex.match(/../g)!, (pair) => Number.parseInt(pair, 16));

const answer = answeredRequest;

/** The span the server made before answered spans existed: made at the request's end, named, set and ended. */
function madeAndEnded(given: AnsweredRequest, headers: Record<string, string> = {}): SpanRecord {
  const finished: SpanRecord[] = [];
  const maker = recordingSpans(samplerFrom({}), (span) => finished.push(span));
  maker.request(new Request("http://x/y", { method: given.method, headers }), given.startedAt, given.route).endAnswered(given);
  expect(finished).toHaveLength(1);
  return finished[0]!;
}

/** The same span as a record of text alone (no parts): what the encoder writes field by field, the reference. */
function asText(made: SpanRecord): SpanRecord {
  const { traceId, spanId, parentSpanId, traceState, name, kind, startMs, endMs, attributes, failure } = made;
  return { traceId, spanId, parentSpanId, traceState, name, kind, startMs, endMs, attributes, failure };
}

/** The same span written from its parts, as the exporter is handed them: its trace id as bytes when new here. */
function fromParts(batch: { addAnswered: AnsweredSink }, made: SpanRecord, given: AnsweredRequest, asBytes: boolean): void {
  const traceId = asBytes ? bytesOf(made.traceId) : made.traceId;
  batch.addAnswered(traceId, bytesOf(made.spanId), made.parentSpanId, made.traceState, made.startMs, made.endMs, given);
}

const CASES: [string, AnsweredRequest, Record<string, string>][] = [
  ["answered 200, a new trace", answer(), {}],
  [
    "refused 401 with our code, a caller's trace and tracestate",
    answer({ status: 401, errorType: "unauthorized" }),
    { traceparent: CALLER, tracestate: "vendor=abc" },
  ],
  ["failed 503 with a code", answer({ method: "POST", route: "/v1/search", status: 503, errorType: "rate_limiter_unavailable" }), {}],
  ["failed 500 without one", answer({ method: "DELETE", route: "unmatched", status: 500 }), { traceparent: CALLER }],
  ["a request id past one length byte, a non-ASCII route", answer({ requestId: "r".repeat(200), route: "/v1/ünïcode" }), {}],
  ["a non-ASCII request id", answer({ requestId: "req_ünïcode_0123456789" }), {}],
  ["a span past two length bytes (a route of 20,000 characters)", answer({ route: `/v1/${"x".repeat(20_000)}` }), {}],
];

describe("a request's span recorded from its parts (never made)", () => {
  for (const [name, given, headers] of CASES) {
    test(`${name}: the bytes of the span made and ended, and of its record as text, in protobuf and in JSON`, () => {
      const made = madeAndEnded(given, headers);
      expect(made.parts).toBeDefined();
      const asBytes = !headers.traceparent;
      const [fast, fromMade, slow] = [new ProtobufBatch(ORIGIN), new ProtobufBatch(ORIGIN), new ProtobufBatch(ORIGIN)];
      // Twice over: the second time its name and attributes come from the caches the first one filled.
      for (let i = 0; i < 2; i++) {
        fromParts(fast, made, given, asBytes);
        fromMade.add(made);
        slow.add(asText(made));
      }
      expect(Buffer.from(fast.body()).equals(Buffer.from(slow.body()))).toBe(true);
      expect(Buffer.from(fromMade.body()).equals(Buffer.from(slow.body()))).toBe(true);
      const [span] = decodeProtobufTraces(fast.body()).resourceSpans![0]!.scopeSpans![0]!.spans!;
      expect(span!.name).toBe(`${given.method} ${given.route}`);
      const [jsonFast, jsonSlow] = [new JsonBatch(ORIGIN), new JsonBatch(ORIGIN)];
      fromParts(jsonFast, made, given, asBytes);
      jsonSlow.add(made);
      expect(jsonFast.body()).toBe(jsonSlow.body());
    });
  }

  test("attributes the request's work set stay beside its answer's; error.type gives way only to an answer's own", () => {
    const written = (given: AnsweredRequest) => {
      const finished: SpanRecord[] = [];
      const maker = recordingSpans(samplerFrom({}), (span) => finished.push(span));
      const span = maker.request(new Request("http://x/y", { method: given.method }), given.startedAt, given.route);
      span.set({ "error.type": "work_code", "http.route": "/raw/path", "research.kind": "search" });
      span.endAnswered(given);
      const [made] = finished;
      const [fromMade, slow] = [new ProtobufBatch(ORIGIN), new ProtobufBatch(ORIGIN)];
      fromMade.add(made!);
      slow.add(asText(made!));
      expect(Buffer.from(fromMade.body()).equals(Buffer.from(slow.body()))).toBe(true);
      const [decoded] = decodeProtobufTraces(fromMade.body()).resourceSpans![0]!.scopeSpans![0]!.spans!;
      const attributes = decoded!.attributes as { key: string; value: { stringValue?: string } }[];
      return Object.fromEntries(attributes.map(({ key, value }) => [key, value.stringValue]));
    };
    const without = written(answer({ status: 200 }));
    expect(without["error.type"]).toBe("work_code");
    expect(without["http.route"]).toBe(answer().route);
    expect(Object.keys(without)).toEqual([
      "http.request.method",
      "http.route",
      "http.response.status_code",
      "error.type",
      "research.kind",
      "request.id",
    ]);
    expect(without["research.kind"]).toBe("search");
    const withCode = written(answer({ status: 429, errorType: "rate_limited" }));
    expect(withCode["error.type"]).toBe("rate_limited");
    expect(withCode["research.kind"]).toBe("search");
  });

  test("past the shapes' bound (512), a span's shape is encoded for it alone: still the same bytes", () => {
    const fast = new ProtobufBatch(ORIGIN);
    const slow = new ProtobufBatch(ORIGIN);
    const methods = ["GET", "POST", "PUT", "PATCH", "DELETE"];
    for (let i = 0; i < 700; i++) {
      const given = answer({ method: methods[i % methods.length]!, route: `/r/${i}`, status: 400 + (i % 3), errorType: `code_${i}` });
      const made = madeAndEnded(given);
      fromParts(fast, made, given, true);
      slow.add(asText(made));
    }
    expect(fast.spans).toBe(700);
    expect(Buffer.from(fast.body()).equals(Buffer.from(slow.body()))).toBe(true);
  });

  test("the span maker: a kept trace is handed over as parts, its id returned for the log; a probe and a trace left out are not", () => {
    const parts: Parameters<AnsweredSink>[] = [];
    const finished: SpanRecord[] = [];
    const sink: AnsweredSink = (...given) => parts.push([...given.slice(0, 1), Uint8Array.from(given[1]), ...given.slice(2)] as never);
    const maker = recordingSpans(samplerFrom({}), (span) => finished.push(span), new Set(["/healthz"]), sink);
    const newTrace = maker.answered(new Request("http://x/y"), answer());
    expect(newTrace).toMatch(/^[0-9a-f]{32}$/);
    expect(parts).toHaveLength(1);
    expect(Buffer.from(parts[0]![0] as Uint8Array).toString("hex")).toBe(newTrace!);
    expect(parts[0]![1]).toHaveLength(8);
    expect(parts[0]![1].some((byte) => byte !== 0)).toBe(true);

    const continued = maker.answered(new Request("http://x/y", { headers: { traceparent: CALLER, tracestate: "k=v" } }), answer());
    expect(continued).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
    expect(parts[1]!.slice(0, 1)).toEqual(["4bf92f3577b34da6a3ce929d0e0e4736"]);
    expect(parts[1]!.slice(2, 4)).toEqual(["00f067aa0ba902b7", "k=v"]);

    // A probe is not traced: the caller's trace id is still the log's.
    expect(maker.answered(new Request("http://x/healthz", { headers: { traceparent: CALLER } }), answer({ route: "/healthz" }))).toBe(
      "4bf92f3577b34da6a3ce929d0e0e4736",
    );
    // A caller's trace marked not sampled is left out, and keeps its id for the log.
    const unsampled = CALLER.replace(/01$/, "00");
    expect(maker.answered(new Request("http://x/y", { headers: { traceparent: unsampled } }), answer())).toBe(
      "4bf92f3577b34da6a3ce929d0e0e4736",
    );
    expect(parts).toHaveLength(2);
    expect(finished).toHaveLength(0);

    // A new trace the sampler leaves out has no id to open.
    const none = recordingSpans(samplerFrom({ OTEL_TRACES_SAMPLER: "always_off" }), (span) => finished.push(span), new Set(), sink);
    expect(none.answered(new Request("http://x/y"), answer())).toBeUndefined();
    expect(parts).toHaveLength(2);
  });

  test("without a sink for parts, the span maker hands `finished` the record of the span made and ended", () => {
    const finished: SpanRecord[] = [];
    const maker = recordingSpans(samplerFrom({}), (span) => finished.push(span));
    const given = answer({ status: 502, errorType: "upstream_failed" });
    const traceId = maker.answered(new Request("http://x/y", { headers: { traceparent: CALLER } }), given);
    const made = madeAndEnded(given, { traceparent: CALLER });
    expect(finished).toHaveLength(1);
    expect(finished[0]!.traceId).toBe(traceId!);
    const fields = ({ parentSpanId, traceState, name, kind, startMs, endMs, attributes, failure }: SpanRecord) =>
      [parentSpanId, traceState, name, kind, startMs, endMs, Object.entries(attributes), failure] as const;
    expect(fields(finished[0]!)).toEqual(fields(made));
    expect(finished[0]!.spanId).toMatch(/^[0-9a-f]{16}$/);
  });
});
