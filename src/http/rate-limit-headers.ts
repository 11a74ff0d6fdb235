import { ServiceError } from "../errors.ts";
import { waitWords } from "../wait-words.ts";

/** What a rate limiter decided for one call (limits/ decides; this layer only says it). */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  retryAfterMs: number;
  resetMs: number;
  plan: { name: string };
}

/**
 * The limit on every authenticated response, in both vocabularies clients
 * read: `X-RateLimit-*` (Reset is a Unix time in seconds, as GitHub's) and
 * the IETF draft's `RateLimit-Policy` / `RateLimit` (t in seconds from now).
 */
export function rateLimitHeaders(outcome: RateDecision, nowMs: number): Record<string, string> {
  const resetSeconds = Math.ceil(outcome.resetMs / 1000);
  return {
    "x-ratelimit-limit": String(outcome.limit),
    "x-ratelimit-remaining": String(outcome.remaining),
    "x-ratelimit-reset": String(Math.ceil((nowMs + outcome.resetMs) / 1000)),
    "ratelimit-policy": `"${outcome.plan.name}";q=${outcome.limit};w=60`,
    ratelimit: `"${outcome.plan.name}";r=${outcome.remaining};t=${resetSeconds}`,
  };
}

export function rateLimited(outcome: RateDecision): ServiceError {
  const seconds = Math.max(1, Math.ceil(outcome.retryAfterMs / 1000));
  return new ServiceError("rate_limited", `rate limited, try again in ${waitWords(seconds)}`, {
    retryAfterSeconds: seconds,
    body: { plan: outcome.plan.name, limit_per_minute: outcome.limit, retry_after_seconds: seconds },
  });
}
