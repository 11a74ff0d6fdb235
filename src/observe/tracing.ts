/**
 * Turns tracing on from OpenTelemetry's standard variables: spans are
 * exported over OTLP/HTTP (JSON) when OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, and nothing is traced when
 * neither is (or OTEL_SDK_DISABLED is true, or OTEL_TRACES_EXPORTER is
 * none). The exporter (otlp-json-exporter.ts) reads the OTLP variables
 * (headers, timeout, compression); the service name is OTEL_SERVICE_NAME,
 * else agentic-search.
 *
 * Spans leave in batches off the request path (BatchSpanProcessor): a
 * collector that is slow or down costs dropped spans, never a caller's time.
 */
import type { Sampler } from "@opentelemetry/sdk-trace";
import { useTracer } from "./trace.ts";

/** The SDK, the exporter and the span adapter: some 20 MB of modules a server that does not trace never loads. */
function sdk() {
  return {
    ...(require("@opentelemetry/sdk-trace") as typeof import("@opentelemetry/sdk-trace")),
    ...(require("./otlp-json-exporter.ts") as typeof import("./otlp-json-exporter.ts")),
    ...(require("@opentelemetry/resources") as typeof import("@opentelemetry/resources")),
    ...(require("./otel-spans.ts") as typeof import("./otel-spans.ts")),
  };
}

export interface Tracing {
  /** Sends what is still batched; shutdown calls it before the process exits. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

type Env = Record<string, string | undefined>;

export function tracingWanted(env: Env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? "").trim().toLowerCase() === "true") return false;
  if ((env.OTEL_TRACES_EXPORTER ?? "otlp").trim().toLowerCase() === "none") return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** OTEL_TRACES_SAMPLER and its argument, as the specification names them; parent-based always-on by default. */
export function samplerFrom(env: Env): Sampler {
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } = sdk();
  const name = (env.OTEL_TRACES_SAMPLER ?? "parentbased_always_on").trim().toLowerCase();
  const arg = Number(env.OTEL_TRACES_SAMPLER_ARG ?? "1");
  const ratio = Number.isFinite(arg) && arg >= 0 && arg <= 1 ? arg : 1;
  switch (name) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(ratio);
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** Starts tracing when the environment asks for it; null (and nothing traced) when it does not. */
export function startTracing(
  env: Env,
  instance: { worker?: number } = {},
  /** Hears an export that failed, in our words: at most a warning, never a caller's error. */
  failed: (reason: string) => void = () => {},
): Tracing | null {
  if (!tracingWanted(env)) return null;
  const { TracerProvider, BatchSpanProcessor, OtlpJsonExporter, otlpTarget, resourceFromAttributes, otelSpans } = sdk();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      "service.name": env.OTEL_SERVICE_NAME?.trim() || "agentic-search",
      ...(env.FLY_MACHINE_ID ? { "service.instance.id": env.FLY_MACHINE_ID } : {}),
      ...(env.FLY_REGION ? { "cloud.region": env.FLY_REGION } : {}),
      ...(instance.worker !== undefined ? { "process.worker": instance.worker } : {}),
    }),
    sampler: samplerFrom(env),
    spanProcessors: [
      new BatchSpanProcessor({ exporter: new OtlpJsonExporter(otlpTarget(env), failed), maxQueueSize: 4096, scheduledDelayMillis: 1000 }),
    ],
  });
  useTracer(otelSpans(provider.getTracer("agentic-search")));
  return {
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      useTracer(null);
      await provider.shutdown();
    },
  };
}
