/**
 * Spans to an OTLP/HTTP collector as JSON (OTLP's http/json encoding), sent
 * with fetch. In place of @opentelemetry/exporter-trace-otlp-http, measured
 * alone on Bun (docs/develop/benchmarks.md): its JSON serializer took 11.9 µs
 * a span (times converted through BigInt, attributes mapped object by object)
 * and its node:http transport 4 more; every traced request paid both. This
 * one writes the same JSON by hand, timestamps as strings from [seconds,
 * nanoseconds], and posts a whole batch with one fetch.
 *
 * It reads the standard variables: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (as
 * is) or OTEL_EXPORTER_OTLP_ENDPOINT (plus /v1/traces), their _HEADERS
 * (`key=value,...`, values URL-encoded), _TIMEOUT (milliseconds, 10000) and
 * _COMPRESSION (gzip or none). A collector that fails or does not answer
 * costs the batch, never a request: the batch processor calls this off the
 * request path.
 */
import type { HrTime } from "@opentelemetry/api";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";

type Env = Record<string, string | undefined>;

/** ExportResultCode of @opentelemetry/core: SUCCESS, FAILED. */
const SUCCESS = 0;
const FAILED = 1;

export interface OtlpTarget {
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
  gzip: boolean;
}

const pick = (env: Env, name: string): string | undefined =>
  env[`OTEL_EXPORTER_OTLP_TRACES_${name}`]?.trim() || env[`OTEL_EXPORTER_OTLP_${name}`]?.trim() || undefined;

/** Where and how spans are sent, from the OTEL_EXPORTER_OTLP_* variables (the traces-specific one wins). */
export function otlpTarget(env: Env): OtlpTarget {
  const signal = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() ?? "";
  const url = signal || `${base.replace(/\/+$/, "")}/v1/traces`;
  const headers: Record<string, string> = {};
  for (const pair of (pick(env, "HEADERS") ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    let value = pair.slice(at + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      // A value that is not URL-encoding is taken as written.
    }
    if (key) headers[key.toLowerCase()] = value;
  }
  const timeout = Number(pick(env, "TIMEOUT") ?? "10000");
  return {
    url,
    headers,
    timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : 10_000,
    gzip: (pick(env, "COMPRESSION") ?? "none").toLowerCase() === "gzip",
  };
}

/** Nanoseconds since the epoch as OTLP's JSON writes a fixed64: a decimal string (no BigInt: dear on JSC). */
function nanos([seconds, nanoseconds]: HrTime): string {
  return seconds === 0 ? String(nanoseconds) : `${seconds}${String(nanoseconds).padStart(9, "0")}`;
}

// Most strings here (names, routes, ids, providers) need no escaping: quoted as they are, not through JSON.stringify.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must be escaped
const PLAIN = /^[^"\\\u0000-\u001f\u2028\u2029\ud800-\udfff]*$/;
const quoted = (text: string): string => (PLAIN.test(text) ? `"${text}"` : JSON.stringify(text));

// An attribute's `{"key":"...","value":` is written once per key: the keys are the code's own few names.
const keyTexts = new Map<string, string>();
function keyText(key: string): string {
  let text = keyTexts.get(key);
  if (text === undefined) {
    text = `{"key":${quoted(key)},"value":`;
    if (keyTexts.size < 1_000) keyTexts.set(key, text);
  }
  return text;
}

function anyValue(value: unknown): string {
  switch (typeof value) {
    case "string":
      return `{"stringValue":${quoted(value)}}`;
    case "boolean":
      return `{"boolValue":${value}}`;
    case "number":
      return Number.isInteger(value)
        ? `{"intValue":"${value}"}`
        : Number.isFinite(value)
          ? `{"doubleValue":${value}}`
          : `{"stringValue":"${value}"}`;
    default:
      if (Array.isArray(value)) return `{"arrayValue":{"values":[${value.map(anyValue).join(",")}]}}`;
      return `{"stringValue":${JSON.stringify(String(value))}}`;
  }
}

function attributes(values: Record<string, unknown>): string {
  let out = "";
  for (const key in values) {
    const value = values[key];
    if (value === undefined || value === null) continue;
    out += `${out ? "," : ""}${keyText(key)}${anyValue(value)}}`;
  }
  return `[${out}]`;
}

function span(s: ReadableSpan): string {
  const context = s.spanContext();
  const parent = s.parentSpanContext?.spanId;
  const status =
    s.status.code === 0
      ? ""
      : `,"status":{"code":${s.status.code}${s.status.message ? `,"message":${JSON.stringify(s.status.message)}` : ""}}`;
  const state = context.traceState?.serialize();
  return (
    `{"traceId":"${context.traceId}","spanId":"${context.spanId}"` +
    (parent ? `,"parentSpanId":"${parent}"` : "") +
    (state ? `,"traceState":${JSON.stringify(state)}` : "") +
    // OTLP's kinds count from UNSPECIFIED = 0: the API's INTERNAL (0) is OTLP's 1.
    `,"name":${quoted(s.name)},"kind":${s.kind + 1},"startTimeUnixNano":"${nanos(s.startTime)}","endTimeUnixNano":"${nanos(s.endTime)}"` +
    `,"attributes":${attributes(s.attributes)}` +
    (s.droppedAttributesCount ? `,"droppedAttributesCount":${s.droppedAttributesCount}` : "") +
    status +
    "}"
  );
}

/** An OTLP ExportTraceServiceRequest in JSON: spans grouped by their resource and instrumentation scope. */
export function otlpJson(spans: ReadableSpan[]): string {
  const byResource = new Map<ReadableSpan["resource"], Map<string, string[]>>();
  for (const s of spans) {
    let scopes = byResource.get(s.resource);
    if (!scopes) byResource.set(s.resource, (scopes = new Map()));
    const scope = s.instrumentationScope;
    const key = `${scope.name}\u0000${scope.version ?? ""}`;
    const list = scopes.get(key) ?? [];
    list.push(span(s));
    scopes.set(key, list);
  }
  const resources: string[] = [];
  for (const [resource, scopes] of byResource) {
    const scopeSpans: string[] = [];
    for (const [key, list] of scopes) {
      const [name, version] = key.split("\u0000");
      scopeSpans.push(
        `{"scope":{"name":${JSON.stringify(name)}${version ? `,"version":${JSON.stringify(version)}` : ""}},"spans":[${list.join(",")}]}`,
      );
    }
    resources.push(`{"resource":{"attributes":${attributes(resource.attributes)}},"scopeSpans":[${scopeSpans.join(",")}]}`);
  }
  return `{"resourceSpans":[${resources.join(",")}]}`;
}

async function gzipped(text: string): Promise<ArrayBuffer> {
  return new Response(new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer();
}

export class OtlpJsonExporter implements SpanExporter {
  private readonly pending = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly target: OtlpTarget,
    /** Hears a failed export in our words (the collector's status, or that it did not answer): never a caller's. */
    private readonly failed: (reason: string) => void = () => {},
  ) {}

  export(spans: ReadableSpan[], done: (result: { code: number; error?: Error }) => void): void {
    if (this.stopped) return done({ code: FAILED, error: new Error("the exporter is shut down") });
    const sent = this.send(otlpJson(spans)).then(
      () => done({ code: SUCCESS }),
      (error: Error) => {
        this.failed(error.message);
        done({ code: FAILED, error });
      },
    );
    this.pending.add(sent);
    void sent.finally(() => this.pending.delete(sent));
  }

  private async send(json: string): Promise<void> {
    const { url, headers, timeoutMs, gzip } = this.target;
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json", ...(gzip ? { "content-encoding": "gzip" } : {}) },
        body: gzip ? await gzipped(json) : json,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new Error(
        error instanceof Error && error.name === "TimeoutError"
          ? "the collector did not answer in time"
          : "the collector could not be reached",
      );
    }
    // The body is not ours to read further than its end: a partial success is still a success for the batch.
    await response.arrayBuffer().catch(() => undefined);
    if (!response.ok) throw new Error(`the collector answered ${response.status}`);
  }

  async forceFlush(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    await this.forceFlush();
  }
}
