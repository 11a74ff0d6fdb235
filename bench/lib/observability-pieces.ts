/**
 * The pieces of observability's cost, each timed alone in a loop: what a
 * request's metrics, its span and its trace id cost by themselves, and what
 * encoding a span costs in a batch. Set beside bench:observability's arms,
 * they say how much of an arm's cost is the work itself and how much is
 * the app around it (the figures of issue 30's closing notes, made a command).
 */
import { statusClass } from "../../src/observe/metrics.ts";
import { ProtobufBatch } from "../../src/observe/otlp-encode.ts";
import { samplerFrom } from "../../src/observe/sampler.ts";
import { SeriesCounter, SeriesHistogram } from "../../src/observe/series.ts";
import { hexOf, newSpanId, newTraceBytes } from "../../src/observe/span-ids.ts";
import { recordingSpans, type SpanRecord } from "../../src/observe/spans.ts";
import type { SpanMaker } from "../../src/observe/trace.ts";
import type { Row } from "./report.ts";

const request = new Request("http://bench/v1/account");
const ORIGIN = { resource: { "service.name": "bench" }, scope: "agentic-search" };

const ANSWER = { method: "GET", route: "/v1/account", status: 401, requestId: "req_01m8fqrx7h0wdg0tmtp4qv75ca", errorType: undefined };

/** A request's span as the app makes it: ended at its response with what it answered. */
function requestSpan(maker: SpanMaker): void {
  const startedAt = performance.now();
  maker.request(request, startedAt).endAnswered({ ...ANSWER, startedAt, endedAt: performance.now() });
}

/** Microseconds a call of `piece`, the least of `rounds` rounds of `calls` calls (a loop's least is its steadiest). */
function time(piece: () => unknown, calls: number, rounds = 5): number {
  for (let i = 0; i < calls / 10; i++) piece();
  let least = Number.POSITIVE_INFINITY;
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    for (let i = 0; i < calls; i++) piece();
    least = Math.min(least, ((performance.now() - start) * 1000) / calls);
  }
  return least;
}

export function observabilityPieces(): Row[] {
  const counter = new SeriesCounter("requests_total", "Requests.", ["route", "method", "status_class"]);
  const histogram = new SeriesHistogram("duration_seconds", "Time.", ["route", "method", "status_class"], [0.005, 0.05, 0.5, 5]);
  const routes = ["/healthz", "/v1/account", "/v1/keys", "/v1/search"];
  let n = 0;
  const kept: SpanRecord[] = [];
  const keeping = recordingSpans(samplerFrom({}), (span) => kept.push(span));
  for (let i = 0; i < 512; i++) requestSpan(keeping);
  const every = recordingSpans(samplerFrom({}), () => {});
  const batch = new ProtobufBatch(ORIGIN);
  const encodeBatch = () => {
    batch.reset();
    for (const span of kept) batch.add(span);
    return batch.body();
  };
  // A request nothing asked a span of (most): its span written from its parts into a batch, as the server's exporter does.
  const answeredBatch = new ProtobufBatch(ORIGIN);
  const answering = recordingSpans(
    samplerFrom({}),
    () => {},
    new Set(),
    (...parts) => {
      if (answeredBatch.spans >= 512) answeredBatch.reset();
      answeredBatch.addAnswered(...parts);
    },
  );
  const answer = { ...ANSWER, errorType: "unauthorized", startedAt: 0, endedAt: 1.5 };
  const tenth = recordingSpans(samplerFrom({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.1" }), () => {});
  const pieces: [string, () => unknown, number, number][] = [
    [
      "a request's counter and histogram (metrics on)",
      () => {
        const labels = { route: routes[n++ & 3]!, method: request.method, status_class: statusClass(401) };
        counter.inc(labels);
        histogram.observe(labels, 0.001);
      },
      1_000_000,
      1,
    ],
    ["a trace id (16 random bytes as hex)", () => hexOf(newTraceBytes()), 1_000_000, 1],
    ["a span id", newSpanId, 1_000_000, 1],
    ["a request's span, every trace kept (made, ended at its answer)", () => requestSpan(every), 1_000_000, 1],
    [
      "a request's span answered (never made), every trace kept, written into a batch",
      () => answering.answered(request, answer),
      1_000_000,
      1,
    ],
    ["a request's span, one trace in ten kept", () => requestSpan(tenth), 1_000_000, 1],
    // Span by span into one kept buffer, then the request's head, as the exporter encodes.
    ["encoding a span as OTLP protobuf (batches of 512)", encodeBatch, 200, kept.length],
  ];
  return pieces.map(([piece, run, calls, per]) => ({ piece, µs: time(run, calls) / per }));
}
