/**
 * The token bucket as one Lua script: one round trip per check, atomic, and
 * timed by the Redis server's clock (TIME), so instances with skewed clocks
 * share one truth. Same arithmetic as bucket.ts.
 *
 * KEYS[1] bucket key; ARGV: capacity, refill per second, ttl ms.
 * Returns {allowed 0|1, remaining, retry_after_ms, reset_ms}.
 */
import type { BucketPolicy, Decision } from "./bucket.ts";
import { fullRefillMs } from "./bucket.ts";

export const TOKEN_BUCKET_LUA = `
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2]) / 1000
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil or ts == nil then
  tokens = capacity
  ts = now
end
if now < ts then now = ts end
tokens = math.min(capacity, tokens + (now - ts) * per_ms)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local retry = 0
if allowed == 0 then retry = math.ceil((1 - tokens) / per_ms) end
return {allowed, math.floor(tokens), retry, math.ceil((capacity - tokens) / per_ms)}
`;

let sha: Promise<string> | undefined;

/** The script's SHA-1, as EVALSHA wants it. */
export function tokenBucketSha(): Promise<string> {
  sha ??= crypto.subtle.digest("SHA-1", new TextEncoder().encode(TOKEN_BUCKET_LUA)).then((d) => Buffer.from(d).toString("hex"));
  return sha;
}

export function scriptArgs(policy: BucketPolicy): string[] {
  return [String(policy.capacity), String(policy.refillPerSecond), String(fullRefillMs(policy) + 1000)];
}

export function decisionFromReply(reply: unknown, policy: BucketPolicy): Decision {
  if (!Array.isArray(reply) || reply.length !== 4) throw new Error("unexpected reply from the rate-limit script");
  const [allowed, remaining, retry, reset] = reply.map(Number) as [number, number, number, number];
  return { allowed: allowed === 1, limit: policy.capacity, remaining, retryAfterMs: retry, resetMs: reset };
}

export const isNoScript = (error: unknown) => error instanceof Error && /NOSCRIPT/i.test(error.message);
