/**
 * Which traces are recorded, from OTEL_TRACES_SAMPLER and
 * OTEL_TRACES_SAMPLER_ARG as OpenTelemetry's specification names them:
 * always_on, always_off, traceidratio and their parentbased_ forms;
 * parentbased_always_on when unset or unknown. The decision is taken once,
 * where a trace enters this process (a request, a task), and its spans
 * inherit it; a ratio is read from the trace id, so every service that
 * samples the same ratio keeps the same traces.
 */
type Env = Record<string, string | undefined>;

export interface Sampler {
  /** What the sampler is, as the environment named it (for the startup line and the tests). */
  readonly description: string;
  /** `parentSampled` is the caller's flag when it sent a valid traceparent, else undefined (a new trace). */
  sample(traceId: string, parentSampled: boolean | undefined): boolean;
}

/** A trace id's rightmost 52 bits as a fraction of their range: W3C asks the right half of an id to be random. */
function position(traceId: string): number {
  return Number.parseInt(traceId.slice(-13), 16) / 2 ** 52;
}

export function samplerFrom(env: Env): Sampler {
  const name = (env.OTEL_TRACES_SAMPLER ?? "").trim().toLowerCase();
  const arg = Number(env.OTEL_TRACES_SAMPLER_ARG ?? "1");
  // An argument out of range is the whole, not an error at start.
  const ratio = Number.isFinite(arg) && arg >= 0 && arg <= 1 ? arg : 1;
  const byRatio = (traceId: string) => position(traceId) < ratio;
  switch (name) {
    case "always_on":
      return { description: "always_on", sample: () => true };
    case "always_off":
      return { description: "always_off", sample: () => false };
    case "traceidratio":
      return { description: `traceidratio ${ratio}`, sample: byRatio };
    case "parentbased_always_off":
      return { description: "parentbased_always_off", sample: (_, parent) => parent ?? false };
    case "parentbased_traceidratio":
      return { description: `parentbased_traceidratio ${ratio}`, sample: (id, parent) => parent ?? byRatio(id) };
    default:
      return { description: "parentbased_always_on", sample: (_, parent) => parent ?? true };
  }
}
