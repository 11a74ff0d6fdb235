/**
 * The token bucket, as pure arithmetic: the in-memory store runs this, and
 * the Redis script (redis-script.ts) is the same steps in Lua. A bucket holds
 * up to `capacity` tokens and refills continuously; each call takes one, a
 * lease (lease.ts) several at once.
 */
export interface BucketPolicy {
  capacity: number;
  refillPerSecond: number;
}

export interface BucketState {
  tokens: number;
  /** Milliseconds; never moves backwards, even if the clock does. */
  updatedAt: number;
}

export interface Decision {
  allowed: boolean;
  limit: number;
  /** Whole tokens left after this call. */
  remaining: number;
  /** When refused: milliseconds until one token is back. 0 when allowed. */
  retryAfterMs: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
}

/** What one take hands out: up to the tokens asked for, never more than the bucket holds at that instant. */
export interface Grant {
  granted: number;
  /** Whole tokens left in the bucket after this take. */
  remaining: number;
  /** When nothing was granted: milliseconds until one token is back. 0 otherwise. */
  retryAfterMs: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
}

/** Takes up to `want` tokens at once (a lease, lease.ts); a check is `want` 1. */
export function takeTokens(
  state: BucketState | undefined,
  now: number,
  policy: BucketPolicy,
  want: number,
): { state: BucketState; grant: Grant } {
  const perMs = policy.refillPerSecond / 1000;
  const updatedAt = state ? Math.max(now, state.updatedAt) : now;
  let tokens = state ? Math.min(policy.capacity, state.tokens + (updatedAt - state.updatedAt) * perMs) : policy.capacity;
  const granted = Math.max(0, Math.min(want, Math.floor(tokens)));
  tokens -= granted;
  return {
    state: { tokens, updatedAt },
    grant: {
      granted,
      remaining: Math.floor(tokens),
      retryAfterMs: granted > 0 ? 0 : Math.ceil((1 - tokens) / perMs),
      resetMs: Math.ceil((policy.capacity - tokens) / perMs),
    },
  };
}

/** A one-token grant as the limiter's answer. */
export function decisionOf(grant: Grant, policy: BucketPolicy): Decision {
  return {
    allowed: grant.granted > 0,
    limit: policy.capacity,
    remaining: grant.remaining,
    retryAfterMs: grant.retryAfterMs,
    resetMs: grant.resetMs,
  };
}

export function takeToken(state: BucketState | undefined, now: number, policy: BucketPolicy): { state: BucketState; decision: Decision } {
  const { state: next, grant } = takeTokens(state, now, policy, 1);
  return { state: next, decision: decisionOf(grant, policy) };
}

/** How long an untouched bucket stays meaningful: after a full refill it equals a fresh one. */
export function fullRefillMs(policy: BucketPolicy): number {
  return Math.ceil((policy.capacity / policy.refillPerSecond) * 1000);
}
