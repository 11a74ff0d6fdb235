/**
 * Finished spans to an OTLP/HTTP collector, in batches, with fetch: a span
 * that ends joins the queue; a batch leaves when 512 are waiting or a second
 * after the first of them, one export at a time, encoded as protobuf
 * (http/protobuf, the specification's default) or JSON (http/json), from
 * OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL. A collector that is slow or down
 * costs the spans that overflow the queue (4,096), never a request's time:
 * what is lost is said, in our words, to `failed`.
 *
 * It reads the standard variables: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (as
 * is) or OTEL_EXPORTER_OTLP_ENDPOINT (plus /v1/traces), their _HEADERS
 * (`key=value,...`, values URL-encoded), _TIMEOUT (milliseconds, 10000),
 * _COMPRESSION (gzip or none) and _PROTOCOL.
 */
import { type Origin, ProtobufEncoder, otlpJson } from "./otlp-encode.ts";
import type { SpanRecord } from "./spans.ts";

type Env = Record<string, string | undefined>;

export interface OtlpTarget {
  url: string;
  headers: Record<string, string>;
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
  private queue: SpanRecord[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private sending: Promise<void> | undefined;
  private dropped = 0;
  private stopped = false;
  private readonly protobuf = new ProtobufEncoder();

  constructor(
    private readonly target: OtlpTarget,
    private readonly origin: Origin,
    /** Hears what was lost and why, in our words (the collector's status, a full queue): never a caller's. */
    private readonly failed: (reason: string) => void = () => {},
    private readonly limits: BatchLimits = LIMITS,
  ) {}

  /** Takes a finished span: the span maker's `finished`. */
  readonly add = (span: SpanRecord): void => {
    if (this.stopped) return;
    if (this.queue.length >= this.limits.maxQueue) {
      this.dropped++;
      return;
    }
    this.queue.push(span);
    if (this.queue.length >= this.limits.batch) this.kick();
    else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.kick();
      }, this.limits.delayMs);
      (this.timer as { unref?: () => void }).unref?.();
    }
  };

  /** Starts sending, after the span that filled a batch has ended: its caller never waits for the encoding. */
  private kick(): void {
    this.sending ??= Promise.resolve()
      .then(() => this.drain(false))
      .finally(() => {
        this.sending = undefined;
        // More came while it sent: a full batch goes now, and so do the rest when their timer fired meanwhile.
        if (this.queue.length >= this.limits.batch || (this.queue.length && !this.timer)) this.kick();
      });
  }

  /** Sends full batches, and with `all` what is left too. */
  private async drain(all: boolean): Promise<void> {
    while (this.queue.length && (all || this.queue.length >= this.limits.batch || !this.timer)) {
      const spans = this.queue.length <= this.limits.batch ? this.queue : this.queue.splice(0, this.limits.batch);
      if (spans === this.queue) this.queue = [];
      if (this.dropped) {
        this.failed(`${this.dropped} spans dropped: they came faster than the collector took them`);
        this.dropped = 0;
      }
      const { json } = this.target;
      try {
        // The protobuf is a view of the encoder's buffer: it is sent, and its answer awaited, before the next is encoded.
        await this.send(json ? otlpJson(spans, this.origin) : this.protobuf.encode(spans, this.origin));
      } catch (error) {
        this.failed((error as Error).message);
      }
    }
  }

  private async send(body: string | Uint8Array<ArrayBuffer>): Promise<void> {
    const { url, headers, timeoutMs, gzip, json } = this.target;
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: {
          ...headers,
          "content-type": json ? "application/json" : "application/x-protobuf",
          ...(gzip ? { "content-encoding": "gzip" } : {}),
        },
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
    // One drain at a time, this one too: the encoder's buffer is reused from one batch to the next.
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
  }
}
