/**
 * Which bucket a call spends, at which plan's limit. A key: its own bucket
 * at its plan's limit. A dashboard session: research shares one bucket per
 * account at the plan's limit; everything else the page does (listing keys,
 * reading usage, editing endpoints) has its own allowance, so a Free owner
 * can use the dashboard without running out of calls by looking around.
 */
import { bucketOf, type Caller } from "../caller.ts";
import type { LimitMeter, LimitOutcome, RateLimiter } from "./limiter.ts";
import { planFor, type Plan } from "./plans.ts";

/** Calls that do research (and cost money): a dashboard session spends its plan's bucket on these, as a key does. */
const RESEARCH = /^\/v1\/(search|ws\/search|contents|user-defined-service\/|published-service\/)/;

export interface AdmissionSettings {
  /** Calls a minute a signed-in dashboard may make outside research (browsing and editing its own things). */
  dashboardPerMinute: number;
}

/**
 * The bucket research spends, at the plan's limit: the caller's own, or, while limit-evasion detection throttles a
 * Free account, the one it shares with the accounts flagged with it. A batch's tasks spend it as they run.
 */
export function researchAllowance(caller: Caller): { bucket: string; plan: Plan } {
  const plan = planFor(caller);
  // Throttled for limit evasion: the accounts flagged together share one Free allowance (paid plans are never throttled).
  if (caller.sharedBucket && plan.name === "free") return { bucket: `shared:${caller.sharedBucket}`, plan };
  return { bucket: bucketOf(caller), plan };
}

function allowance(settings: AdmissionSettings, caller: Caller, path: string): { bucket: string; plan: Plan; meter?: LimitMeter } {
  if (!caller.sessionId || RESEARCH.test(path)) return researchAllowance(caller);
  const plan = planFor(caller);
  return {
    bucket: `dashboard:${caller.accountId}`,
    plan: { ...plan, perMinute: Math.max(plan.perMinute, settings.dashboardPerMinute) },
    meter: "dashboard",
  };
}

/** Takes one token for the call to `path`: the outcome says whether it may go on (at once when no round trip is needed). */
export function admission(
  limiter: RateLimiter,
  settings: AdmissionSettings,
): (caller: Caller, path: string) => LimitOutcome | Promise<LimitOutcome> {
  return (caller, path) => {
    const { bucket, plan, meter } = allowance(settings, caller, path);
    return limiter.check(bucket, plan, meter);
  };
}
