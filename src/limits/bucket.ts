/**
 * The token bucket, as pure arithmetic: the in-memory store runs this, and
 * the Redis script (redis-script.ts) is the same steps in Lua. A bucket holds
 * up to `capacity` tokens and refills continuously; each call takes one.
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

export function takeToken(state: BucketState | undefined, now: number, policy: BucketPolicy): { state: BucketState; decision: Decision } {
  const perMs = policy.refillPerSecond / 1000;
  const updatedAt = state ? Math.max(now, state.updatedAt) : now;
  let tokens = state ? Math.min(policy.capacity, state.tokens + (updatedAt - state.updatedAt) * perMs) : policy.capacity;
  const allowed = tokens >= 1;
  if (allowed) tokens -= 1;
  const missing = policy.capacity - tokens;
  return {
    state: { tokens, updatedAt },
    decision: {
      allowed,
      limit: policy.capacity,
      remaining: Math.floor(tokens),
      retryAfterMs: allowed ? 0 : Math.ceil((1 - tokens) / perMs),
      resetMs: Math.ceil(missing / perMs),
    },
  };
}

/** How long an untouched bucket stays meaningful: after a full refill it equals a fresh one. */
export function fullRefillMs(policy: BucketPolicy): number {
  return Math.ceil((policy.capacity / policy.refillPerSecond) * 1000);
}
