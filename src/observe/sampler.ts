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
  /**
   * `traceId` as hex (a caller's) or as its 16 bytes (a new trace's, before its text is made); `parentSampled` is the
   * caller's flag when it sent a valid traceparent, else undefined (a new trace).
   */
  sample(traceId: string | Uint8Array, parentSampled: boolean | undefined): boolean;
}

/**
 * A trace id's rightmost 52 bits (13 hex digits: the low half of byte 9, then bytes 10 to 15) as a fraction of their
 * range, the same from its text or its bytes: W3C asks the right half of an id to be random.
 */
export function position(traceId: string | Uint8Array): number {
  if (typeof traceId === "string") return Number.parseInt(traceId.slice(-13), 16) / 2 ** 52;
  let bits = traceId[9]! & 15;
  for (let i = 10; i < 16; i++) bits = bits * 256 + traceId[i]!;
  return bits / 2 ** 52;
}

export function samplerFrom(env: Env): Sampler {
  const name = (env.OTEL_TRACES_SAMPLER ?? "").trim().toLowerCase();
  const arg = Number(env.OTEL_TRACES_SAMPLER_ARG ?? "1");
  // An argument out of range is the whole, not an error at start.
  const ratio = Number.isFinite(arg) && arg >= 0 && arg <= 1 ? arg : 1;
  const byRatio = (traceId: string | Uint8Array) => position(traceId) < ratio;
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
