/**
 * Finished spans to an OTLP/HTTP collector, in batches: a span
 * that ends is encoded at once into the batch being filled, as protobuf
 * (http/protobuf, the specification's default) or JSON (http/json), from
 * OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL; a batch leaves when 512 are waiting
 * or a second after the first of them, one export at a time. A collector
 * that is slow or down costs the spans that overflow the queue (4,096),
 * never a request's time: what is lost is said, in our words, to `failed`.
 * An http: collector is posted to over a connection of our own, kept open
 * (collector-connection.ts: fetch cost a loaded server some 4% more); an
 * https: one with fetch.
 *
 * It reads the standard variables: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (as
 * is) or OTEL_EXPORTER_OTLP_ENDPOINT (plus /v1/traces), their _HEADERS
 * (`key=value,...`, values URL-encoded), _TIMEOUT (milliseconds, 10000),
 * _COMPRESSION (gzip or none) and _PROTOCOL.
 */
import { CollectorConnection, CollectorError, isHttpHeader } from "./collector-connection.ts";
import { JsonBatch, type Origin, ProtobufBatch, type SpanBatch } from "./otlp-encode.ts";
import type { AnsweredSink, SpanRecord } from "./spans.ts";

type Env = Record<string, string | undefined>;

export interface OtlpTarget {
  url: string;
  headers: Record<string, string>;
  /** The names of the headers asked for that are left out: not `name=value`, or not valid HTTP (never their values). */
  refused: string[];
  timeoutMs: number;
  gzip: boolean;
  /** http/protobuf, unless the protocol asked for is http/json (gRPC is not spoken: protobuf over HTTP in its place). */
  json: boolean;
}

const pick = (env: Env, name: string): string | undefined =>
  env[`OTEL_EXPORTER_OTLP_TRACES_${name}`]?.trim() || env[`OTEL_EXPORTER_OTLP_${name}`]?.trim() || undefined;

/** Where and how spans are sent, from the OTEL_EXPORTER_OTLP_* variables (the traces-specific one wins). */
export function otlpTarget(env: Env): OtlpTarget {
  const signal = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() ?? "";
  const url = signal || `${base.replace(/\/+$/, "")}/v1/traces`;
  const headers: Record<string, string> = {};
  const refused: string[] = [];
  for (const pair of (pick(env, "HEADERS") ?? "").split(",")) {
    if (!pair.trim()) continue;
    const at = pair.indexOf("=");
    const key = (at < 0 ? pair : pair.slice(0, at)).trim();
    let value = at < 0 ? "" : pair.slice(at + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      // A value that is not URL-encoding is taken as written.
    }
    // Left out and named, as OpenTelemetry's SDKs do, rather than failing every export that would carry it.
    if (at <= 0 || !key || !isHttpHeader(key, value)) refused.push(key.slice(0, 64) || "(no name)");
    else headers[key.toLowerCase()] = value;
  }
  const timeout = Number(pick(env, "TIMEOUT") ?? "10000");
  return {
    url,
    headers,
    refused,
    timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : 10_000,
    gzip: (pick(env, "COMPRESSION") ?? "none").toLowerCase() === "gzip",
    json: (pick(env, "PROTOCOL") ?? "").toLowerCase() === "http/json",
  };
}

async function gzipped(body: string | Uint8Array<ArrayBuffer>): Promise<ArrayBuffer> {
  return new Response(new Blob([body]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer();
}

export interface BatchLimits {
  /** Spans waiting at most; those that come while it is full are dropped (and counted). */
  maxQueue: number;
  /** Spans in one export. */
  batch: number;
  /** How long the first span of a batch that is not full waits for company. */
  delayMs: number;
}

const LIMITS: BatchLimits = { maxQueue: 4096, batch: 512, delayMs: 1000 };
/** The most any of them may be set to: the queue holds finished spans in memory. */
const LIMITS_MAX: BatchLimits = { maxQueue: 65_536, batch: 65_536, delayMs: 60_000 };

/** A whole number from min to max, or the default when the variable is unset or not one. */
function whole(text: string | undefined, min: number, max: number, fallback: number): number {
  // Digits only: Number() would take "0x10", "1e3" and "" too.
  if (text === undefined || !/^\s*\d{1,9}\s*$/.test(text)) return fallback;
  const value = Number(text);
  return value >= min && value <= max ? value : fallback;
}

/**
 * The batch span processor's standard variables: OTEL_BSP_MAX_QUEUE_SIZE (4,096 here), OTEL_BSP_MAX_EXPORT_BATCH_SIZE
 * (512) and OTEL_BSP_SCHEDULE_DELAY (1,000 ms here: spans reach the collector within a second of ending). A value
 * that is not a whole number in range is the default; a batch larger than the queue is the queue.
 */
export function batchLimits(env: Env): BatchLimits {
  const maxQueue = whole(env.OTEL_BSP_MAX_QUEUE_SIZE, 1, LIMITS_MAX.maxQueue, LIMITS.maxQueue);
  const batch = whole(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, 1, LIMITS_MAX.batch, LIMITS.batch);
  return {
    maxQueue,
    batch: Math.min(batch, maxQueue),
    delayMs: whole(env.OTEL_BSP_SCHEDULE_DELAY, 0, LIMITS_MAX.delayMs, LIMITS.delayMs),
  };
}

export class OtlpExporter {
  /** The batch spans are encoded into as they end. */
  private current: SpanBatch;
  /** Batches full and waiting to leave, oldest first. */
  private readonly full: SpanBatch[] = [];
  /** Batches sent, emptied for reuse (their buffers are kept). */
  private readonly spare: SpanBatch[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private sending: Promise<void> | undefined;
  private dropped = 0;
  private stopped = false;
  /** The kept connection to an http: collector, made at the first export. */
  private connection: CollectorConnection | undefined;
  /** An http: collector (however its scheme is written) is posted to over the connection; any other with fetch. */
  private readonly plain: URL | undefined;

  constructor(
    private readonly target: OtlpTarget,
    private readonly origin: Origin,
    /** Hears what was lost and why, in our words (the collector's status, a full queue): never a caller's. */
    private readonly failed: (reason: string) => void = () => {},
    private readonly limits: BatchLimits = LIMITS,
  ) {
    this.current = this.batch();
    const url = URL.parse(target.url);
    this.plain = url?.protocol === "http:" ? url : undefined;
  }

  private batch(): SpanBatch {
    return this.spare.pop() ?? (this.target.json ? new JsonBatch(this.origin) : new ProtobufBatch(this.origin));
  }

  /** Takes a finished span (the span maker's `finished`) and encodes it at once: nothing keeps the span itself. */
  readonly add = (span: SpanRecord): void => {
    if (!this.room()) return;
    this.current.add(span);
    this.added();
  };

  /** Takes an answered request's span as its parts (the span maker's `answered`), encoded as they are. */
  readonly addAnswered: AnsweredSink = (traceId, spanId, parentSpanId, traceState, startMs, endMs, answer) => {
    if (!this.room()) return;
    this.current.addAnswered(traceId, spanId, parentSpanId, traceState, startMs, endMs, answer);
    this.added();
  };

  /** Whether a span may be queued: not once stopped, nor while the queue is full (it is then dropped, and counted). */
  private room(): boolean {
    if (this.stopped) return false;
    // Spans encoded and not yet sent (each full batch holds a batch's worth): the queue the limit bounds.
    if (this.full.length * this.limits.batch + this.current.spans >= this.limits.maxQueue) {
      this.dropped++;
      return false;
    }
    return true;
  }

  /** After a span is encoded: a full batch leaves, and the first of a batch starts its timer. */
  private added(): void {
    if (this.current.spans >= this.limits.batch) {
      this.full.push(this.current);
      this.current = this.batch();
      this.kick();
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.kick();
      }, this.limits.delayMs);
      (this.timer as { unref?: () => void }).unref?.();
    }
  }

  /** Starts sending, after the span that filled a batch has ended: its caller never waits for the request. */
  private kick(): void {
    this.sending ??= Promise.resolve()
      .then(() => this.drain(false))
      .finally(() => {
        this.sending = undefined;
        // More came while it sent: a full batch goes now, and so do the rest when their timer fired meanwhile.
        if (this.full.length || (this.current.spans && !this.timer)) this.kick();
      });
  }

  /** The next batch to send: a full one, else (with `all`, or once the timer has fired) the one being filled. */
  private next(all: boolean): SpanBatch | undefined {
    const full = this.full.shift();
    if (full) return full;
    if (!this.current.spans || !(all || !this.timer)) return undefined;
    const partial = this.current;
    this.current = this.batch();
    return partial;
  }

  /** Sends full batches, and with `all` what is left too. */
  private async drain(all: boolean): Promise<void> {
    for (let batch = this.next(all); batch; batch = this.next(all)) {
      if (this.dropped) {
        this.failed(`${this.dropped} spans dropped: they came faster than the collector took them`);
        this.dropped = 0;
      }
      try {
        // The body is a view of the batch's buffer: it is sent, and its answer awaited, before the batch is reused.
        await this.send(batch.body());
      } catch (error) {
        this.failed((error as Error).message);
      } finally {
        batch.reset();
        if (this.spare.length < 2) this.spare.push(batch);
      }
    }
  }

  private send(body: string | Uint8Array<ArrayBuffer>): Promise<void> {
    return this.plain ? this.post(this.plain, body) : this.fetch(body);
  }

  private headers(): Record<string, string> {
    const { headers, gzip, json } = this.target;
    return {
      ...headers,
      "content-type": json ? "application/json" : "application/x-protobuf",
      ...(gzip ? { "content-encoding": "gzip" } : {}),
    };
  }

  private async post(url: URL, body: string | Uint8Array<ArrayBuffer>): Promise<void> {
    const { timeoutMs, gzip } = this.target;
    let status: number;
    try {
      this.connection ??= new CollectorConnection(url, this.headers());
      status = await this.connection.post(gzip ? new Uint8Array(await gzipped(body)) : body, timeoutMs);
    } catch (error) {
      throw new Error(error instanceof CollectorError ? error.message : "the collector could not be reached");
    }
    if (status < 200 || status > 299) throw new Error(`the collector answered ${status}`);
  }

  private async fetch(body: string | Uint8Array<ArrayBuffer>): Promise<void> {
    const { url, timeoutMs, gzip } = this.target;
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: this.headers(),
        body: gzip ? await gzipped(body) : body,
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

  /** Sends every span that has ended so far. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    // One drain at a time, this one too: a batch is reused once sent.
    while (this.sending) await this.sending;
    const all: Promise<void> = this.drain(true).finally(() => {
      if (this.sending === all) this.sending = undefined;
    });
    this.sending = all;
    await all;
  }

  async shutdown(): Promise<void> {
    await this.flush();
    this.stopped = true;
    this.connection?.close();
  }
}
