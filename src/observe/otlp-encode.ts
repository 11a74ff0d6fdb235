/**
 * A batch of finished spans as OTLP's ExportTraceServiceRequest, in either
 * encoding OTLP/HTTP takes: protobuf (http/protobuf, the specification's
 * default, and the cheaper: bytes written into one buffer) or JSON
 * (http/json). Field numbers are those of opentelemetry-proto's
 * trace/v1/trace.proto, common/v1/common.proto and resource/v1/resource.proto;
 * a span's times are fixed64 nanoseconds, written without BigInt (dear on
 * JSC) from milliseconds that carry a fraction.
 */
import { type AnsweredSink, answerOverrides, answeredFailure, answeredRecord, SpanKind, type SpanParts, type SpanRecord } from "./spans.ts";
import type { AnsweredRequest } from "./trace.ts";

export type Attributes = Readonly<Record<string, string | number | boolean>>;

/** What every span of the batch shares: the resource (the service and its instance) and the scope's name. */
export interface Origin {
  resource: Attributes;
  scope: string;
}

// ---- protobuf

/** A growable buffer with protobuf's wire primitives. */
class Writer {
  bytes: Uint8Array<ArrayBuffer>;
  at = 0;
  private view: DataView;

  constructor(size = 64 * 1024) {
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
  }

  /** Grows the buffer, if need be, so that n more bytes fit. */
  room(n: number): void {
    if (this.at + n <= this.bytes.length) return;
    let size = Math.max(64, this.bytes.length * 2);
    while (size < this.at + n) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, this.at));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }
  byte(value: number): void {
    this.room(1);
    this.bytes[this.at++] = value;
  }
  /** An unsigned varint below 2^53. */
  varint(value: number): void {
    // Most are one byte (tags, short lengths): written without the loop.
    if (value < 128) {
      this.room(1);
      this.bytes[this.at++] = value;
      return;
    }
    this.room(10);
    while (value > 127) {
      this.bytes[this.at++] = (value % 128) | 128;
      value = Math.floor(value / 128);
    }
    this.bytes[this.at++] = value;
  }
  /** A varint of 64 bits given as two unsigned halves (a negative int64 is ten bytes). */
  varint64(low: number, high: number): void {
    this.room(10);
    while (high > 0 || low > 127) {
      this.bytes[this.at++] = (low & 127) | 128;
      low = ((low >>> 7) | ((high & 127) << 25)) >>> 0;
      high >>>= 7;
    }
    this.bytes[this.at++] = low;
  }
  tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }
  /** Little-endian, a byte at a time: cheaper on JSC than two DataView writes. */
  fixed64(low: number, high: number): void {
    this.room(8);
    const bytes = this.bytes;
    let at = this.at;
    bytes[at++] = low;
    bytes[at++] = low >>> 8;
    bytes[at++] = low >>> 16;
    bytes[at++] = low >>> 24;
    bytes[at++] = high;
    bytes[at++] = high >>> 8;
    bytes[at++] = high >>> 16;
    bytes[at++] = high >>> 24;
    this.at = at;
  }
  double(value: number): void {
    this.room(8);
    this.view.setFloat64(this.at, value, true);
    this.at += 8;
  }
  string(field: number, text: string): void {
    this.tag(field, 2);
    // Written as ASCII in one pass, as nearly every string here is; at the first other character, encoded again whole.
    const start = this.at;
    this.varint(text.length);
    this.room(text.length);
    const bytes = this.bytes;
    let at = this.at;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code > 127) break;
      bytes[at++] = code;
    }
    if (at - this.at === text.length) {
      this.at = at;
      return;
    }
    this.at = start;
    const encoded = encoder.encode(text);
    this.varint(encoded.length);
    this.room(encoded.length);
    this.bytes.set(encoded, this.at);
    this.at += encoded.length;
  }
  /** Bytes already encoded, copied in a loop up to a few dozen (cheaper there than a native set), natively past that. */
  copy(encoded: Uint8Array): void {
    this.room(encoded.length);
    if (encoded.length > 64) {
      this.bytes.set(encoded, this.at);
      this.at += encoded.length;
      return;
    }
    const bytes = this.bytes;
    let at = this.at;
    for (let i = 0; i < encoded.length; i++) bytes[at++] = encoded[i]!;
    this.at = at;
  }
  /** A bytes field from bytes (an id drawn here). */
  bytesField(field: number, bytes: Uint8Array): void {
    this.tag(field, 2);
    this.varint(bytes.length);
    this.copy(bytes);
  }
  /** Bytes given as hex (a trace or span id). */
  hex(field: number, text: string): void {
    this.tag(field, 2);
    this.varint(text.length / 2);
    this.room(text.length / 2);
    const bytes = this.bytes;
    let at = this.at;
    for (let i = 0; i < text.length; i += 2) bytes[at++] = (NIBBLE[text.charCodeAt(i)]! << 4) | NIBBLE[text.charCodeAt(i + 1)]!;
    this.at = at;
  }
  /** Opens a length-delimited field; `close` writes its length once its body is written. */
  open(field: number): number {
    this.tag(field, 2);
    this.room(1);
    return this.at++;
  }
  /**
   * Opens a length-delimited field whose body will take two length bytes (128 bytes to 16 KiB: a request's span), so
   * that `closeWide` moves nothing when it does.
   */
  openWide(field: number): number {
    this.tag(field, 2);
    this.room(2);
    const mark = this.at;
    this.at += 2;
    return mark;
  }
  closeWide(mark: number): void {
    const length = this.at - mark - 2;
    if (length < 128 || length >= 16384) return this.moveBody(mark, 2, length);
    this.bytes[mark] = (length & 127) | 128;
    this.bytes[mark + 1] = length >>> 7;
  }
  close(mark: number): void {
    const length = this.at - mark - 1;
    if (length < 128) this.bytes[mark] = length;
    else this.moveBody(mark, 1, length);
  }
  /** A body whose length takes other than the `kept` bytes left for it at `mark`: moved to where its length ends. */
  private moveBody(mark: number, kept: number, length: number): void {
    const size = varintSize(length);
    this.room(size - kept);
    this.bytes.copyWithin(mark + size, mark + kept, this.at);
    const end = this.at + size - kept;
    this.at = mark;
    this.varint(length);
    this.at = end;
  }
}

const encoder = new TextEncoder();
/** A lowercase hex digit's value, by its char code: ids are ours, or an incoming traceparent's, which only lowercase passes. */
const NIBBLE = new Uint8Array(128);
for (let i = 0; i < 10; i++) NIBBLE[48 + i] = i;
for (let i = 0; i < 6; i++) NIBBLE[97 + i] = 10 + i;

const P11 = 2 ** 11;
const P21 = 2 ** 21;
const P32 = 2 ** 32;

/**
 * Nanoseconds since the epoch as two 32-bit halves, from milliseconds with a fraction, exact in doubles throughout:
 * only floors, and products by 10^6 and by powers of two (exact), no remainder (fmod, some 30 ns a call on JSC: these
 * two times were a fifth of a span's encoding).
 */
export function nanoHalves(ms: number, into: [low: number, high: number] = [0, 0]): [low: number, high: number] {
  const whole = Math.floor(ms);
  const fraction = Math.round((ms - whole) * 1e6);
  // ns = whole × 10^6 + fraction, with whole = upper × 2^21 + its low 21 bits, and upper × 10^6 = top × 2^11 + its
  // low 11 bits: ns = top × 2^32 + rest, where rest stays below 2^53.
  const upper = Math.floor(whole * (1 / P21));
  const upperNs = upper * 1e6;
  const top = Math.floor(upperNs * (1 / P11));
  const rest = (upperNs - top * P11) * P21 + (whole - upper * P21) * 1e6 + fraction;
  const carry = Math.floor(rest * (1 / P32));
  into[0] = rest - carry * P32;
  into[1] = top + carry;
  return into;
}

/** The halves of each time written, reused: a span's two times need no array each. */
const halves: [number, number] = [0, 0];

function anyValue(out: Writer, field: number, value: string | number | boolean): void {
  const mark = out.open(field);
  if (typeof value === "string") out.string(1, value);
  else if (typeof value === "boolean") {
    out.tag(2, 0);
    out.byte(value ? 1 : 0);
  } else if (Number.isSafeInteger(value)) {
    out.tag(3, 0);
    if (value >= 0) out.varint(value);
    else out.varint64((value % 4294967296) >>> 0, Math.floor(value / 4294967296) >>> 0);
  } else {
    out.tag(4, 1);
    out.double(value);
  }
  out.close(mark);
}

/**
 * Each attribute key's KeyValue.key field, encoded once: the keys are the code's own few dozen names, written into
 * every span. Bounded all the same, so a key made at run time could never grow it without end.
 */
const keyFields = new Map<string, Uint8Array>();
const KEY_FIELDS_MAX = 512;

function keyField(key: string): Uint8Array | undefined {
  let encoded = keyFields.get(key);
  if (encoded === undefined && keyFields.size < KEY_FIELDS_MAX) {
    const out = new Writer(key.length * 3 + 8);
    out.string(1, key);
    keyFields.set(key, (encoded = out.bytes.slice(0, out.at)));
  }
  return encoded;
}

/** One KeyValue of a span's attributes (Span.attributes, field 9). */
function keyValue(out: Writer, key: string, value: string | number | boolean, field = 9): void {
  const encoded = keyField(key);
  if (encoded !== undefined && shortKeyValue(out, field, encoded, value)) return;
  const mark = out.open(field);
  if (encoded) out.copy(encoded);
  else out.string(1, key);
  anyValue(out, 2, value);
  out.close(mark);
}

/**
 * A KeyValue whose every length is one byte (its key encoded once; its value ASCII text of a few dozen characters, a
 * boolean, or a whole number under 2^21, as nearly every attribute here is), written in one pass with its lengths
 * known up front: the same bytes keyValue writes field by field, without a call per tag and length. False, with
 * nothing written, for any other.
 */
function shortKeyValue(out: Writer, field: number, key: Uint8Array, value: string | number | boolean): boolean {
  // AnyValue: string_value (1) as text, bool_value (2) or int_value (3) as a varint.
  let size: number;
  if (typeof value === "string") size = value.length + 2;
  else if (typeof value === "boolean") size = 2;
  else if (Number.isInteger(value) && value >= 0 && value < 2097152) size = value < 128 ? 2 : value < 16384 ? 3 : 4;
  else return false;
  const body = key.length + 2 + size;
  if (field > 15 || body > 127 || size > 127) return false;
  const start = out.at;
  out.room(body + 2);
  const bytes = out.bytes;
  let at = start;
  bytes[at++] = field * 8 + 2;
  bytes[at++] = body;
  for (let i = 0; i < key.length; i++) bytes[at++] = key[i]!;
  bytes[at++] = 0x12; // KeyValue.value
  bytes[at++] = size;
  if (typeof value === "string") {
    bytes[at++] = 0x0a;
    bytes[at++] = value.length;
    for (let i = 0; i < value.length; i++) {
      const code = value.charCodeAt(i);
      if (code > 127) return false; // nothing kept: `at` was never stored
      bytes[at++] = code;
    }
  } else if (typeof value === "boolean") {
    bytes[at++] = 0x10;
    bytes[at++] = value ? 1 : 0;
  } else {
    bytes[at++] = 0x18;
    let left = value;
    while (left > 127) {
      bytes[at++] = (left & 127) | 128;
      left >>>= 7;
    }
    bytes[at++] = left;
  }
  out.at = at;
  return true;
}

function keyValues(out: Writer, field: number, attributes: Attributes): void {
  for (const key in attributes) {
    const value = attributes[key];
    if (value === undefined || value === null) continue;
    keyValue(out, key, value, field);
  }
}

/** A span's status, failed (Span.status, field 15): our word for why. */
function failedStatus(out: Writer, message: string): void {
  const status = out.open(15);
  out.string(2, message);
  out.tag(3, 0);
  out.varint(2); // STATUS_CODE_ERROR
  out.close(status);
}

/** An id as OTLP's bytes: copied when drawn here, read from its hex when a caller's. */
function idField(out: Writer, field: number, id: Uint8Array | string): void {
  if (typeof id === "string") out.hex(field, id);
  else out.bytesField(field, id);
}

function protobufSpan(out: Writer, span: SpanRecord): void {
  if (span.parts !== undefined) return madeSpan(out, span.parts);
  const mark = out.open(2); // ScopeSpans.spans
  out.hex(1, span.traceId);
  out.hex(2, span.spanId);
  if (span.traceState) out.string(3, span.traceState);
  if (span.parentSpanId) out.hex(4, span.parentSpanId);
  writeHead(out, span.name, span.kind);
  nanoHalves(span.startMs, halves);
  out.fixed64(halves[0], halves[1]);
  out.tag(8, 1);
  nanoHalves(span.endMs, halves);
  out.fixed64(halves[0], halves[1]);
  keyValues(out, 9, span.attributes);
  if (span.failure !== undefined) failedStatus(out, span.failure);
  out.close(mark);
}

/** A span's name, its kind and the start time's tag: the fields between its ids and its start time. */
function writeHead(out: Writer, name: string, kind: number): void {
  out.string(5, name);
  out.tag(6, 0);
  out.varint(kind);
  out.tag(7, 1);
}

/**
 * A made span's head (writeHead) by its kind and name, encoded once: the names are the code's own (page.read,
 * provider.search, a stage's). Bounded all the same (HEADS_MAX): past it, a head is encoded for its span alone.
 */
const heads = new Map<number, Map<string, Uint8Array>>();
let headCount = 0;
const HEADS_MAX = 512;

function headOf(name: string, kind: number): Uint8Array {
  let byName = heads.get(kind);
  let head = byName?.get(name);
  if (head !== undefined) return head;
  head = encodedOnce((out) => writeHead(out, name, kind));
  if (headCount >= HEADS_MAX) return head;
  if (byName === undefined) heads.set(kind, (byName = new Map()));
  byName.set(name, head);
  headCount++;
  return head;
}

/**
 * Opens a span (ScopeSpans.spans, two length bytes kept: closed by `closeWide`) and writes it up to its attributes: its
 * ids (bytes copied, a caller's hex read), its tracestate, its head (name, kind, the start time's tag, encoded once)
 * and its two times. What a made span and an answered one share.
 */
function openSpan(
  out: Writer,
  trace: Uint8Array | string,
  id: Uint8Array,
  traceState: string | undefined,
  parent: Uint8Array | string | undefined,
  head: Uint8Array,
  startMs: number,
  endMs: number,
): number {
  const mark = out.openWide(2);
  idField(out, 1, trace);
  out.bytesField(2, id);
  if (traceState) out.string(3, traceState);
  if (parent) idField(out, 4, parent);
  out.copy(head);
  nanoHalves(startMs, halves);
  out.fixed64(halves[0], halves[1]);
  out.byte(0x41); // the end time's tag: field 8, fixed64
  nanoHalves(endMs, halves);
  out.fixed64(halves[0], halves[1]);
  return mark;
}

/**
 * A span made here, from the parts it was kept in, as protobufSpan writes its record, field for field: its ids copied
 * as drawn, its head from the heads' cache, and a request's span ended at its response as an answered span is (its
 * shape), with the attributes set on it besides.
 */
function madeSpan(out: Writer, span: SpanParts): void {
  const answer = span.answer;
  const shape = answer === undefined ? undefined : answeredShape(answer);
  const head = shape === undefined ? headOf(span.given, span.kind) : shape.head;
  const mark = openSpan(out, span.trace, span.id, span.traceState, span.parent, head, span.startMs, span.endMs);
  const pairs = span.pairs;
  if (shape === undefined) {
    for (let at = 0; at < pairs.length; at += 2) keyValue(out, pairs[at] as string, pairs[at + 1]!);
    if (span.failed !== undefined) failedStatus(out, span.failed);
  } else {
    out.copy(shape.attributes);
    for (let at = 0; at < pairs.length; at += 2) {
      const key = pairs[at] as string;
      if (!answerOverrides(key, answer!)) keyValue(out, key, pairs[at + 1]!);
    }
    keyValue(out, "request.id", answer!.requestId);
    if (shape.tail.length) out.copy(shape.tail);
    else if (span.failed !== undefined) failedStatus(out, span.failed);
  }
  out.closeWide(mark);
}

/**
 * The bytes of an answered request's span that are the same for every request of one method, route template, status
 * and error type, encoded once: `head`, its name, kind and the start time's tag; `attributes`, its method, route,
 * status-code and error-type attributes; `tail`, a failure's status (empty below 500). A span is then its ids, its
 * two times and its request id between copies of these. Bounded (SHAPES_MAX), so values made at run time (an odd
 * method a client sent) could never grow the cache without end: past the bound a shape is encoded for its span alone.
 */
interface AnsweredShape {
  head: Uint8Array;
  attributes: Uint8Array;
  tail: Uint8Array;
}

const SHAPES_MAX = 512;
/** By method, route, status and error type ("" for none). */
const shapes = new Map<string, Map<string, Map<number, Map<string, AnsweredShape>>>>();
let shapeCount = 0;

function encodedOnce(write: (out: Writer) => void): Uint8Array {
  const out = new Writer(256);
  write(out);
  return out.bytes.slice(0, out.at);
}

function encodeShape(answer: AnsweredRequest): AnsweredShape {
  const head = encodedOnce((out) => writeHead(out, `${answer.method} ${answer.route}`, SpanKind.server));
  const attributes = encodedOnce((out) => {
    keyValue(out, "http.request.method", answer.method);
    keyValue(out, "http.route", answer.route);
    keyValue(out, "http.response.status_code", answer.status);
    if (answer.errorType !== undefined) keyValue(out, "error.type", answer.errorType);
  });
  const failure = answeredFailure(answer);
  const tail = failure === undefined ? new Uint8Array(0) : encodedOnce((out) => failedStatus(out, failure));
  return { head, attributes, tail };
}

function answeredShape(answer: AnsweredRequest): AnsweredShape {
  const { method, route, status } = answer;
  const error = answer.errorType ?? "";
  let byRoute = shapes.get(method);
  let byStatus = byRoute?.get(route);
  let byError = byStatus?.get(status);
  let shape = byError?.get(error);
  if (shape !== undefined) return shape;
  shape = encodeShape(answer);
  if (shapeCount >= SHAPES_MAX) return shape;
  if (byRoute === undefined) shapes.set(method, (byRoute = new Map()));
  if (byStatus === undefined) byRoute.set(route, (byStatus = new Map()));
  if (byError === undefined) byStatus.set(status, (byError = new Map()));
  byError.set(error, shape);
  shapeCount++;
  return shape;
}

/** Room for a batch of 512 request spans (some 110 KB) and more, so a kept buffer seldom grows. */
const KEPT_BYTES = 256 * 1024;
/** A buffer this large or more is not kept after its batch: one batch of long names does not hold memory for good. */
const KEPT_BYTES_MAX = 1024 * 1024;

/** A batch of spans encoded as they end, so no span is kept until its batch leaves; sent as one export request. */
export interface SpanBatch {
  /** Spans in it. */
  readonly spans: number;
  add(span: SpanRecord): void;
  /** An answered request's span, from its parts (spans.ts AnsweredSink): the same span `add` would write. */
  addAnswered: AnsweredSink;
  /** The ExportTraceServiceRequest: valid until `reset`. */
  body(): string | Uint8Array<ArrayBuffer>;
  /** Empties it for the next batch. */
  reset(): void;
}

/** A length-delimited field's bytes: its tag, its length, then the body. */
function fieldBytes(field: number, write: (out: Writer) => void): Uint8Array {
  const out = new Writer(1024);
  const mark = out.open(field);
  write(out);
  out.close(mark);
  return out.bytes.slice(0, out.at);
}

/**
 * Spans in protobuf, each written into the batch's buffer when it ends. The request's head (ResourceSpans and
 * ScopeSpans, whose lengths are known only at the end, and the resource and scope) is written last, into room left
 * before the first span, so the request is one view of the buffer. The buffer is kept from one batch to the next.
 * A span kept as an object until its batch left outlived the young generation: in a server under load, batches of
 * 4,096 cost more than batches of 512, and encoding each span as it ends cost a little less than keeping it (the
 * medians of `bench:http --observability --pin`, averaged per target over two runs each: 1.07-1.14 on over off, from
 * 1.09-1.15).
 */
export class ProtobufBatch implements SpanBatch {
  spans = 0;
  private out = new Writer(KEPT_BYTES);
  /** Resource(1) and the Scope(1) inside ScopeSpans, written once. */
  private readonly resource: Uint8Array;
  private readonly scope: Uint8Array;
  /** Room for the head: the two fields above and two tags with lengths of up to 5 bytes. */
  private readonly room: number;

  constructor(origin: Origin) {
    this.resource = fieldBytes(1, (out) => keyValues(out, 1, origin.resource));
    this.scope = fieldBytes(1, (out) => out.string(1, origin.scope));
    this.room = this.resource.length + this.scope.length + 12;
    this.out.at = this.room;
  }
  add(span: SpanRecord): void {
    protobufSpan(this.out, span);
    this.spans++;
  }
  /** An answered request's span, written as protobufSpan writes the same span made and ended: field for field, in order. */
  readonly addAnswered: AnsweredSink = (traceId, spanId, parentSpanId, traceState, startMs, endMs, answer) => {
    const shape = answeredShape(answer);
    const out = this.out;
    const mark = openSpan(out, traceId, spanId, traceState, parentSpanId, shape.head, startMs, endMs);
    out.copy(shape.attributes);
    keyValue(out, "request.id", answer.requestId);
    out.copy(shape.tail);
    out.closeWide(mark);
    this.spans++;
  };
  body(): Uint8Array<ArrayBuffer> {
    const spansLength = this.out.at - this.room;
    const scopeSpans = this.scope.length + spansLength;
    const resourceSpans = this.resource.length + 1 + varintSize(scopeSpans) + scopeSpans;
    const head = new Writer(this.room);
    head.tag(1, 2); // ExportTraceServiceRequest.resource_spans
    head.varint(resourceSpans);
    head.copy(this.resource);
    head.tag(2, 2); // ResourceSpans.scope_spans
    head.varint(scopeSpans);
    head.copy(this.scope);
    const start = this.room - head.at;
    this.out.bytes.set(head.bytes.subarray(0, head.at), start);
    return this.out.bytes.subarray(start, this.out.at);
  }
  reset(): void {
    if (this.out.bytes.length >= KEPT_BYTES_MAX) this.out = new Writer(KEPT_BYTES);
    this.out.at = this.room;
    this.spans = 0;
  }
}

function varintSize(value: number): number {
  let size = 1;
  for (; value > 127; value = Math.floor(value / 128)) size++;
  return size;
}

/** The batch as an ExportTraceServiceRequest in protobuf (one resource, one scope), in bytes of its own. */
export function otlpProtobuf(spans: readonly SpanRecord[], origin: Origin): Uint8Array<ArrayBuffer> {
  const batch = new ProtobufBatch(origin);
  for (const span of spans) batch.add(span);
  return batch.body().slice();
}

// ---- JSON

// Most strings here (names, routes, ids, providers) need no escaping: quoted as they are, not through JSON.stringify.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must be escaped
const PLAIN = /^[^"\\\u0000-\u001f\u2028\u2029\ud800-\udfff]*$/;
const quoted = (text: string): string => (PLAIN.test(text) ? `"${text}"` : JSON.stringify(text));

/** OTLP's JSON writes a fixed64 as a decimal string. */
function nanosText(ms: number): string {
  let whole = Math.floor(ms);
  let fraction = Math.round((ms - whole) * 1e6);
  if (fraction === 1e6) {
    whole++;
    fraction = 0;
  }
  return whole === 0 ? String(fraction) : `${whole}${String(fraction).padStart(6, "0")}`;
}

function jsonValue(value: string | number | boolean): string {
  if (typeof value === "string") return `{"stringValue":${quoted(value)}}`;
  if (typeof value === "boolean") return `{"boolValue":${value}}`;
  if (Number.isSafeInteger(value)) return `{"intValue":"${value}"}`;
  return Number.isFinite(value) ? `{"doubleValue":${value}}` : `{"stringValue":"${value}"}`;
}

function jsonAttributes(attributes: Attributes): string {
  const out: string[] = [];
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined && value !== null) out.push(`{"key":${quoted(key)},"value":${jsonValue(value)}}`);
  }
  return `[${out.join(",")}]`;
}

function jsonSpan(span: SpanRecord): string {
  return (
    `{"traceId":"${span.traceId}","spanId":"${span.spanId}"` +
    (span.parentSpanId ? `,"parentSpanId":"${span.parentSpanId}"` : "") +
    (span.traceState ? `,"traceState":${JSON.stringify(span.traceState)}` : "") +
    `,"name":${quoted(span.name)},"kind":${span.kind}` +
    `,"startTimeUnixNano":"${nanosText(span.startMs)}","endTimeUnixNano":"${nanosText(span.endMs)}"` +
    `,"attributes":${jsonAttributes(span.attributes)}` +
    (span.failure !== undefined ? `,"status":{"code":2,"message":${JSON.stringify(span.failure)}}` : "") +
    "}"
  );
}

/** Spans in OTLP's JSON, each written as text when it ends. */
export class JsonBatch implements SpanBatch {
  private texts: string[] = [];
  private readonly head: string;
  constructor(origin: Origin) {
    this.head =
      `{"resourceSpans":[{"resource":{"attributes":${jsonAttributes(origin.resource)}},` +
      `"scopeSpans":[{"scope":{"name":${JSON.stringify(origin.scope)}},"spans":[`;
  }
  get spans(): number {
    return this.texts.length;
  }
  add(span: SpanRecord): void {
    this.texts.push(jsonSpan(span));
  }
  readonly addAnswered: AnsweredSink = (...parts) => this.add(answeredRecord(...parts));
  body(): string {
    return `${this.head}${this.texts.join(",")}]}]}]}`;
  }
  reset(): void {
    this.texts = [];
  }
}

/** The batch as an ExportTraceServiceRequest in OTLP's JSON (ids as hex, as OTLP/JSON writes them). */
export function otlpJson(spans: readonly SpanRecord[], origin: Origin): string {
  const batch = new JsonBatch(origin);
  for (const span of spans) batch.add(span);
  return batch.body();
}
