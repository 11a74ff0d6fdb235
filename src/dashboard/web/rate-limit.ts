/**
 * A 429 in words: which limit was reached and when to try again. The API's
 * refusal says both (its body's plan and limit_per_minute, and Retry-After);
 * a refusal without them (too many open search sockets) keeps its own words.
 */
import { ApiError } from "./api.ts";

export interface RateLimitRefusal {
  /** The plan whose limit was reached ("Free"), when the refusal names it. */
  plan: string | null;
  perMinute: number | null;
  /** The refusal's own sentence, for a limit that is not the plan's. */
  detail: string;
  /** Seconds to wait, as the refusal said them. */
  retryAfter: number;
}

const PLAN_NAMES: Record<string, string> = { free: "Free", pro: "Pro", enterprise: "Enterprise" };

export function rateLimitOf(error: unknown): RateLimitRefusal | null {
  if (!(error instanceof ApiError) || error.status !== 429) return null;
  const plan = typeof error.fields.plan === "string" ? (PLAN_NAMES[error.fields.plan] ?? error.fields.plan) : null;
  const perMinute = typeof error.fields.limit_per_minute === "number" ? error.fields.limit_per_minute : null;
  const bodyWait = typeof error.fields.retry_after_seconds === "number" ? error.fields.retry_after_seconds : null;
  return { plan, perMinute, detail: error.message, retryAfter: Math.max(0, error.retryAfter ?? bodyWait ?? 0) };
}

/** "Rate limit reached: your Free plan allows 10 calls a minute." (or the refusal's own words). */
export function limitWords(refusal: RateLimitRefusal): string {
  if (refusal.perMinute === null) return `Rate limit reached: ${refusal.detail.replace(/,? try again in .*$/i, "")}.`;
  const calls = `${refusal.perMinute} ${refusal.perMinute === 1 ? "call" : "calls"} a minute`;
  return `Rate limit reached: ${refusal.plan ? `your ${refusal.plan} plan` : "your plan"} allows ${calls}.`;
}

/** "Try again in 42 s." while there is a wait, "You can try again now." after it. */
export function retryWords(secondsLeft: number): string {
  return secondsLeft > 0 ? `Try again in ${Math.ceil(secondsLeft)} s.` : "You can try again now.";
}
