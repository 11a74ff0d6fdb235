/**
 * Turns tracing on from OpenTelemetry's standard variables: spans are
 * exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, and nothing is traced when
 * neither is (or OTEL_SDK_DISABLED is true, or OTEL_TRACES_EXPORTER is
 * none). The exporter (otlp-exporter.ts) reads the OTLP variables (headers,
 * timeout, compression, protocol) and the batches' sizes and delay
 * (OTEL_BSP_*); the sampler is OTEL_TRACES_SAMPLER's
 * (sampler.ts); the service name is OTEL_SERVICE_NAME, else agentic-search.
 */
import { batchLimits, OtlpExporter, otlpTarget } from "./otlp-exporter.ts";
import { samplerFrom } from "./sampler.ts";
import { recordingSpans } from "./spans.ts";
import { useTracer } from "./trace.ts";

export interface Tracing {
  /** The sampler in effect, as the environment named it. */
  sampler: string;
  /** The collector headers asked for and left out (their names): for a warning at start-up. */
  refusedHeaders: string[];
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

/** Starts tracing when the environment asks for it; null (and nothing traced) when it does not. */
export function startTracing(
  env: Env,
  instance: { worker?: number; untracedRoutes?: readonly string[] } = {},
  /** Hears spans lost, in our words: at most a warning, never a caller's error. */
  failed: (reason: string) => void = () => {},
): Tracing | null {
  if (!tracingWanted(env)) return null;
  const resource: Record<string, string | number> = {
    "service.name": env.OTEL_SERVICE_NAME?.trim() || "agentic-search",
    "telemetry.sdk.language": "javascript",
    "process.runtime.name": "bun",
    "process.runtime.version": Bun.version,
    ...(env.FLY_MACHINE_ID ? { "service.instance.id": env.FLY_MACHINE_ID } : {}),
    ...(env.FLY_REGION ? { "cloud.region": env.FLY_REGION } : {}),
    ...(instance.worker !== undefined ? { "process.worker": instance.worker } : {}),
  };
  const target = otlpTarget(env);
  const exporter = new OtlpExporter(target, { resource, scope: "agentic-search" }, failed, batchLimits(env));
  const sampler = samplerFrom(env);
  useTracer(recordingSpans(sampler, exporter.add, new Set(instance.untracedRoutes), exporter.addAnswered));
  return {
    sampler: sampler.description,
    refusedHeaders: target.refused,
    flush: () => exporter.flush(),
    shutdown: async () => {
      useTracer(null);
      await exporter.shutdown();
    },
  };
}
