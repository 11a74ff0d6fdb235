/**
 * Recording spans: the SpanMaker tracing.ts installs when tracing is on. A
 * span is its own record: when it ends it is handed, as it is, to the
 * exporter's batch, which encodes it as OTLP from the parts it was kept in
 * (SpanParts: ids as drawn, never made hex unless asked; attributes as set;
 * a request's answer), so a made span costs little more to write than an
 * answered one. In place of OpenTelemetry's SDK (see docs/operate/tracing.md):
 * measured in a server under load, its span cost 9 µs a request and the
 * whole of tracing doubled the CPU of a cheap request; the service needs a
 * span with attributes, a status and W3C propagation, and nothing of the
 * SDK's context, processors, limits and self-metrics.
 *
 * A request's span that nothing asked for before the response (most
 * requests: they made no child span) is never made at all: its parts go
 * to the exporter at the end (`answered`), written from bytes kept per
 * method, route, status and error type (otlp-encode.ts's shapes). Made,
 * named, set and ended, it cost a refused WebSocket upgrade
 * several points more of its CPU (docs/operate/tracing.md).
 *
 * Whether a trace is recorded is decided once, where it enters the process
 * (sampler.ts); a span left out still carries its trace on, flagged as not
 * sampled, so the services it calls leave it out too.
 */
import type { Sampler } from "./sampler.ts";
import { hexOf, newSpanId, newSpanIdBytes, newTraceBytes } from "./span-ids.ts";
import { type AnsweredRequest, type SpanAttributes, type SpanMaker, type TraceSpan, untracedSpan } from "./trace.ts";
import { formatTraceparent, parseTraceparent, parseTracestate, type TraceContext } from "./trace-context.ts";

/** OTLP's span kinds (SpanKind in trace.proto). */
export const SpanKind = { internal: 1, server: 2, client: 3 } as const;

/** A finished span, as the exporter reads it: as text (ids in hex), and, when made here, as the parts it was kept in. */
export interface SpanRecord {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly traceState: string | undefined;
  readonly name: string;
  readonly kind: number;
  /** Milliseconds since the epoch, to a fraction of a microsecond. */
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /** Set when the span failed: our own word for why (OTLP's status ERROR with this message). */
  readonly failure: string | undefined;
  /** The same span as it was kept, for the protobuf encoder to copy (otlp-encode.ts); absent from a record built as text. */
  readonly parts?: SpanParts;
}

type AttributeValue = string | number | boolean;

/**
 * A made span as it is kept until it ends: its ids as drawn (no hex made unless something asks for the text), its
 * attributes as set, and, for a request's span ended at its response, what it answered, from which its name, route,
 * status, error and request id are written as an answered span's are (otlp-encode.ts's shapes).
 */
export interface SpanParts {
  /** The trace's id: its 16 bytes when the trace began here, its text when a caller's. */
  readonly trace: Uint8Array | string;
  readonly id: Uint8Array;
  /** The parent's id: its bytes when the parent was made here, its text when a caller's. */
  readonly parent: Uint8Array | string | undefined;
  readonly traceState: string | undefined;
  /** Its name as given (a request's answer, when set, names it instead). */
  readonly given: string;
  readonly kind: number;
  readonly startMs: number;
  readonly endMs: number;
  /** Attributes in the order they were first set: a key, then its value, and so on. */
  readonly pairs: readonly AttributeValue[];
  /** Set by `fail`. */
  readonly failed: string | undefined;
  readonly answer: AnsweredRequest | undefined;
}

/** The attributes a request's answer gives its span: set from the answer, they are not written again from `pairs`. */
const ANSWERED_KEYS: ReadonlySet<string> = new Set([
  "http.request.method",
  "http.route",
  "http.response.status_code",
  "error.type",
  "request.id",
]);

/**
 * Whether a key set on a request's span gives way to its answer's: always, but `error.type` only when the answer has
 * one, so a code the request's work set stays on a span its answer gives none.
 */
export const answerOverrides = (key: string, answer: AnsweredRequest): boolean =>
  ANSWERED_KEYS.has(key) && (answer.errorType !== undefined || key !== "error.type");

// Read once: a getter on a host object, dear beside the sum.
const TIME_ORIGIN = performance.timeOrigin;
/** Milliseconds since the epoch from a performance.now() reading (now when none is given). */
const clock = (at = performance.now()): number => TIME_ORIGIN + at;

/** Sets each defined attribute: a key set before keeps its place and takes the new value. */
function assign(pairs: AttributeValue[], attributes: SpanAttributes | undefined): void {
  if (!attributes) return;
  for (const key in attributes) {
    const value = attributes[key];
    if (value === undefined) continue;
    let at = 0;
    while (at < pairs.length && pairs[at] !== key) at += 2;
    if (at < pairs.length) pairs[at + 1] = value;
    else pairs.push(key, value);
  }
}

const textOf = (id: Uint8Array | string): string => (typeof id === "string" ? id : hexOf(id));

/** A request's answer as its span's attributes, in the order the encoder writes them. */
function answeredAttributes(answer: AnsweredRequest, pairs: readonly AttributeValue[]): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {
    "http.request.method": answer.method,
    "http.route": answer.route,
    "http.response.status_code": answer.status,
  };
  if (answer.errorType !== undefined) attributes["error.type"] = answer.errorType;
  for (let at = 0; at < pairs.length; at += 2) {
    const key = pairs[at] as string;
    if (!answerOverrides(key, answer)) attributes[key] = pairs[at + 1]!;
  }
  attributes["request.id"] = answer.requestId;
  return attributes;
}

/** A failed request's word for its span's status: its error code, for a status of 500 or more. */
export const answeredFailure = (answer: AnsweredRequest): string | undefined =>
  answer.status >= 500 ? (answer.errorType ?? "server_error") : undefined;

class RecordingSpan implements TraceSpan, SpanRecord, SpanParts {
  readonly recording = true;
  readonly id = newSpanIdBytes(new Uint8Array(8));
  readonly startMs: number;
  endMs = 0;
  failed: string | undefined;
  answer: AnsweredRequest | undefined;
  readonly pairs: AttributeValue[] = [];
  /** The trace id's text, made once something asks (the request's log line does). */
  private traceText: string | undefined;

  constructor(
    private readonly finished: (span: SpanRecord) => void,
    readonly trace: Uint8Array | string,
    readonly parent: Uint8Array | string | undefined,
    readonly traceState: string | undefined,
    readonly given: string,
    readonly kind: number,
    attributes: SpanAttributes | undefined,
    /** When it started, as performance.now() read it: a request's span takes the time its request already read. */
    startedAt?: number,
  ) {
    this.startMs = clock(startedAt);
    assign(this.pairs, attributes);
  }
  get parts(): SpanParts {
    return this;
  }
  get traceId(): string {
    this.traceText ??= textOf(this.trace);
    return this.traceText;
  }
  get spanId(): string {
    return hexOf(this.id);
  }
  get parentSpanId(): string | undefined {
    return this.parent === undefined ? undefined : textOf(this.parent);
  }
  get name(): string {
    return this.answer ? `${this.answer.method} ${this.answer.route}` : this.given;
  }
  get attributes(): Record<string, AttributeValue> {
    if (this.answer) return answeredAttributes(this.answer, this.pairs);
    const attributes: Record<string, AttributeValue> = {};
    for (let at = 0; at < this.pairs.length; at += 2) attributes[this.pairs[at] as string] = this.pairs[at + 1]!;
    return attributes;
  }
  get failure(): string | undefined {
    return (this.answer && answeredFailure(this.answer)) ?? this.failed;
  }
  child(name: string, attributes?: SpanAttributes, kind: "internal" | "client" = "internal"): TraceSpan {
    return new RecordingSpan(this.finished, this.trace, this.id, this.traceState, name, SpanKind[kind], attributes);
  }
  set(attributes: SpanAttributes): void {
    assign(this.pairs, attributes);
  }
  fail(reason: string): void {
    this.failed = reason;
  }
  end(at?: number): void {
    // A span ends once: a second end (a cleanup path that also ends it) is not a second span.
    if (this.endMs) return;
    this.endMs = clock(at);
    this.finished(this);
  }
  endAnswered(answer: AnsweredRequest): void {
    if (this.endMs) return;
    this.answer = answer;
    this.end(answer.endedAt);
  }
  traceparent(): string {
    return formatTraceparent(this.traceId, this.spanId, true);
  }
}

/**
 * A span of a trace the sampler left out: records nothing, and passes the trace on flagged as not sampled. Its
 * `traceId` is the caller's, for the log, or undefined for a new trace, which has nothing to open: its id is made only
 * when a call passes it on, from the bytes the sampler decided on, so a trace left out costs no text.
 */
class UnsampledSpan implements TraceSpan {
  readonly recording = false;
  private passedOn: string | undefined;
  constructor(
    readonly traceId: string | undefined,
    private readonly newTrace?: Uint8Array,
  ) {}
  child(): TraceSpan {
    return this;
  }
  set(): void {}
  fail(): void {}
  end(): void {}
  traceparent(): string {
    // One span id for the request: every call it makes passes on the same parent.
    this.passedOn ??= formatTraceparent(this.traceId ?? hexOf(this.newTrace!), newSpanId(), false);
    return this.passedOn;
  }
  endAnswered(): void {}
}

/**
 * The trace a span enters, as the sampler decides it: kept, its id (a caller's as text, a new one as its 16 bytes, made
 * text only when needed); left out, the span that carries it on unrecorded.
 */
function entered(sampler: Sampler, parent: TraceContext | undefined): Uint8Array | string | UnsampledSpan {
  if (parent === undefined) {
    const bytes = newTraceBytes();
    return sampler.sample(bytes, undefined) ? bytes : new UnsampledSpan(undefined, bytes);
  }
  return sampler.sample(parent.traceId, parent.sampled) ? parent.traceId : new UnsampledSpan(parent.traceId);
}

/**
 * Takes a kept request's span that was never made (SpanMaker.answered) as its parts: the trace id as 16 bytes when the
 * trace is new here, as text when a caller's; the span id's 8 bytes (a buffer reused: read before returning); the
 * caller's span id and tracestate; its times in milliseconds since the epoch.
 */
export type AnsweredSink = (
  traceId: Uint8Array | string,
  spanId: Uint8Array,
  parentSpanId: string | undefined,
  traceState: string | undefined,
  startMs: number,
  endMs: number,
  answer: AnsweredRequest,
) => void;

/** An answered request's span as a record: what `answered` hands `finished` when no AnsweredSink is given. */
export function answeredRecord(
  ...[traceId, spanId, parentSpanId, traceState, startMs, endMs, answer]: Parameters<AnsweredSink>
): SpanRecord {
  return {
    traceId: textOf(traceId),
    spanId: hexOf(spanId),
    parentSpanId,
    traceState,
    name: `${answer.method} ${answer.route}`,
    kind: SpanKind.server,
    startMs,
    endMs,
    attributes: answeredAttributes(answer, []),
    failure: answeredFailure(answer),
  };
}

/**
 * Spans for every trace the sampler keeps; each one that ends goes to `finished`, and each request's span that was
 * never made goes to `answered` as its parts (the exporter encodes them as they are: no span object, no id as text),
 * or, without one, to `finished` as a record. Requests whose route is one of `untracedRoutes` (the health probes a
 * balancer sends every few seconds) are not traced at all: the route is known where the request context ends a span
 * that nothing asked for before the response.
 */
export function recordingSpans(
  sampler: Sampler,
  finished: (span: SpanRecord) => void,
  untracedRoutes: ReadonlySet<string> = new Set(),
  answered: AnsweredSink = (...parts) => finished(answeredRecord(...parts)),
): SpanMaker {
  return {
    request(request, startedAt, route) {
      if (route !== undefined && untracedRoutes.has(route)) return untracedSpan(request);
      const parent = parseTraceparent(request.headers.get("traceparent"));
      const trace = entered(sampler, parent);
      if (trace instanceof UnsampledSpan) return trace;
      const state = parent ? parseTracestate(request.headers.get("tracestate")) : undefined;
      // Named for its method until its answer names it; its method, route and status are its answer's attributes
      // (endAnswered, which ends every request's span: http/request-context.ts), so none is set on it here.
      return new RecordingSpan(finished, trace, parent?.spanId, state, request.method, SpanKind.server, undefined, startedAt);
    },
    answered(request, answer) {
      if (untracedRoutes.has(answer.route)) return untracedSpan(request).traceId;
      const parent = parseTraceparent(request.headers.get("traceparent"));
      const trace = entered(sampler, parent);
      if (trace instanceof UnsampledSpan) return trace.traceId;
      const state = parent ? parseTracestate(request.headers.get("tracestate")) : undefined;
      answered(trace, newSpanIdBytes(), parent?.spanId, state, clock(answer.startedAt), clock(answer.endedAt), answer);
      return typeof trace === "string" ? trace : hexOf(trace);
    },
    root(name, attributes) {
      const trace = entered(sampler, undefined) as Uint8Array | UnsampledSpan;
      if (trace instanceof UnsampledSpan) return trace;
      return new RecordingSpan(finished, trace, undefined, undefined, name, SpanKind.internal, attributes);
    },
  };
}
