/**
 * The token bucket as one Lua script: one round trip per check (or per lease
 * of several tokens, lease.ts), atomic, and timed by the Redis server's clock
 * (TIME), so instances with skewed clocks share one truth. Same arithmetic as
 * takeTokens in bucket.ts: it grants up to the tokens asked for, never more
 * than the bucket holds at that instant.
 *
 * KEYS[1] bucket key; ARGV: capacity, refill per second, ttl ms, tokens wanted.
 * Returns {granted, remaining, retry_after_ms, reset_ms}.
 */
import type { BucketPolicy, Grant } from "./bucket.ts";
import { fullRefillMs } from "./bucket.ts";
import { LuaScript } from "./redis-connection.ts";

export const TOKEN_BUCKET_LUA = `
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2]) / 1000
local want = tonumber(ARGV[4])
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
local granted = math.max(0, math.min(want, math.floor(tokens)))
tokens = tokens - granted
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local retry = 0
if granted == 0 then retry = math.ceil((1 - tokens) / per_ms) end
return {granted, math.floor(tokens), retry, math.ceil((capacity - tokens) / per_ms)}
`;

export const tokenBucketScript = new LuaScript(TOKEN_BUCKET_LUA);

export function scriptArgs(policy: BucketPolicy, want: number): string[] {
  return [String(policy.capacity), String(policy.refillPerSecond), String(fullRefillMs(policy) + 1000), String(want)];
}

export function grantFromReply(reply: unknown): Grant {
  if (!Array.isArray(reply) || reply.length !== 4) throw new Error("unexpected reply from the rate-limit script");
  const [granted, remaining, retryAfterMs, resetMs] = reply.map(Number) as [number, number, number, number];
  return { granted, remaining, retryAfterMs, resetMs };
}
