/**
 * What a collector reads from an OTLP/HTTP traces export, in either
 * encoding: protobuf is decoded by protobufjs from OTLP's own schema (the
 * messages of opentelemetry-proto's collector/trace/v1, trace/v1,
 * common/v1 and resource/v1 that a span export uses, with their field
 * numbers), an implementation that is not ours; JSON is parsed. Both come
 * out in OTLP/JSON's shape, ids as lowercase hex. And a request's answer, as the
 * tests of spans give it.
 */
import protobuf from "protobufjs";
import type { AnsweredRequest } from "../../src/observe/trace.ts";

const SCHEMA = `
syntax = "proto3";
package opentelemetry.proto;
message AnyValue {
  oneof value {
    string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message Status { reserved 1; string message = 2; int32 code = 3; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; fixed32 flags = 16;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; uint32 dropped_attributes_count = 10;
  uint32 dropped_events_count = 12; uint32 dropped_links_count = 14; Status status = 15;
}
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
`;

const request = protobuf.parse(SCHEMA, { keepCase: false }).root.lookupType("opentelemetry.proto.ExportTraceServiceRequest");

/** OTLP/JSON's shape of an export: resourceSpans[].scopeSpans[].spans[], ids as hex, times and int64s as strings. */
export interface ExportedTraces {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: Record<string, unknown> }[] };
    scopeSpans?: { scope?: { name?: string }; spans?: Record<string, unknown>[] }[];
  }[];
}

const hexOf = (bytes: Uint8Array | string | undefined): string | undefined =>
  bytes === undefined || bytes.length === 0 ? undefined : Buffer.from(bytes as Uint8Array).toString("hex");

/** Decodes a protobuf export with OTLP's schema, in OTLP/JSON's shape. */
export function decodeProtobufTraces(body: Uint8Array): ExportedTraces {
  const message = request.decode(body);
  const plain = request.toObject(message, { longs: String, defaults: false, oneofs: false }) as ExportedTraces;
  for (const resource of plain.resourceSpans ?? [])
    for (const scope of resource.scopeSpans ?? [])
      for (const span of scope.spans ?? [])
        for (const field of ["traceId", "spanId", "parentSpanId"]) {
          const hex = hexOf(span[field] as Uint8Array | undefined);
          if (hex === undefined) delete span[field];
          else span[field] = hex;
        }
  return plain;
}

/** An export as a collector takes it: by its content type. */
export async function readTraces(request: Request): Promise<ExportedTraces> {
  const type = request.headers.get("content-type") ?? "";
  if (type.includes("json")) return (await request.json()) as ExportedTraces;
  if (!type.includes("protobuf")) throw new Error(`not an OTLP content type: ${type}`);
  return decodeProtobufTraces(new Uint8Array(await request.arrayBuffer()));
}

/** A request's answer as the request context gives its span (AnsweredRequest): an account read by default. */
export function answeredRequest(fields: Partial<AnsweredRequest> = {}): AnsweredRequest {
  const startedAt = performance.now();
  return {
    method: "GET",
    route: "/v1/account",
    status: 200,
    requestId: "req_01m8fqrx7h0wdg0tmtp4qv75ca",
    errorType: undefined,
    startedAt,
    endedAt: startedAt + 1.2345,
    ...fields,
  };
}
