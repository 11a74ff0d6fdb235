/**
 * The windows as one Lua script: one round trip per counted call adds its
 * sightings, trims each set by time and size, renews its expiry, and
 * returns only the windows newly breached (with their calls), so an
 * ordinary call reads nothing back. Same rules as windows.ts. Times are the
 * service's clock (ARGV), not Redis's: a flag marker holds the time its
 * period ends, and expires by Redis's clock only to free the memory.
 *
 * KEYS: per sighting, its set and then its flag marker per window.
 * ARGV: now ms, longest window ms, cap, min accounts, window count n, the n windows (ms), the n thresholds,
 * then per sighting its kind and member.
 * Returns {{sighting index, window ms, {member, score, member, score, …}}, …}.
 */
import { markerKey, type Breach, type Sighting, type WindowSettings } from "./windows.ts";
import { LuaScript } from "../limits/redis-connection.ts";

export const WINDOWS_LUA = `
local now = tonumber(ARGV[1])
local longest = tonumber(ARGV[2])
local cap = tonumber(ARGV[3])
local min_accounts = tonumber(ARGV[4])
local n = tonumber(ARGV[5])
local windows, thresholds = {}, {}
for i = 1, n do
  windows[i] = tonumber(ARGV[5 + i])
  thresholds[i] = tonumber(ARGV[5 + n + i])
end
local base = 5 + 2 * n
local function parts(member)
  return string.match(member, '^([^|]*)|([^|]*)')
end
local function breached(kind, entries)
  local seen, accounts = {}, 0
  for i = 1, #entries, 2 do
    local account = parts(entries[i])
    if not seen[account] then seen[account] = true; accounts = accounts + 1 end
  end
  if accounts < min_accounts then return false end
  if kind == 'work' then return true end
  local users = {}
  for i = 1, #entries, 2 do
    local account, work = parts(entries[i])
    if work ~= '' then
      local u = users[work]
      if not u then u = { n = 0, seen = {} }; users[work] = u end
      if not u.seen[account] then u.seen[account] = true; u.n = u.n + 1 end
    end
  end
  local calls, shared, sharing = 0, {}, 0
  for i = 1, #entries, 2 do
    local account, work = parts(entries[i])
    if work ~= '' and users[work].n >= 2 then
      calls = calls + 1
      if not shared[account] then shared[account] = true; sharing = sharing + 1 end
    end
  end
  return calls * 2 >= #entries / 2 and sharing >= min_accounts
end
local out = {}
for s = 1, (#ARGV - base) / 2 do
  local first = (s - 1) * (n + 1) + 1
  local key = KEYS[first]
  local kind, member = ARGV[base + 2 * s - 1], ARGV[base + 2 * s]
  redis.call('ZADD', key, now, member)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - longest)
  local size = redis.call('ZCARD', key)
  if size > cap then redis.call('ZREMRANGEBYRANK', key, 0, size - cap - 1) end
  redis.call('PEXPIRE', key, longest)
  for i = 1, n do
    local marker = KEYS[first + i]
    local from = '(' .. string.format('%d', now - windows[i])
    local flagged_until = tonumber(redis.call('GET', marker))
    if redis.call('ZCOUNT', key, from, '+inf') > thresholds[i] and (not flagged_until or flagged_until <= now) then
      local entries = redis.call('ZRANGEBYSCORE', key, from, '+inf', 'WITHSCORES')
      if breached(kind, entries) then
        redis.call('SET', marker, string.format('%d', now + windows[i]), 'PX', windows[i])
        out[#out + 1] = { s, windows[i], entries }
      end
    end
  end
end
return out
`;

export const windowsScript = new LuaScript(WINDOWS_LUA);

export function scriptKeys(sightings: readonly Sighting[], settings: WindowSettings): string[] {
  return sightings.flatMap((s) => [s.key, ...settings.windowsMs.map((ms) => markerKey(s.key, ms))]);
}

export function scriptArgs(sightings: readonly Sighting[], settings: WindowSettings, now: number): string[] {
  const { windowsMs, thresholds, cap, minAccounts } = settings;
  return [
    String(Math.floor(now)),
    String(windowsMs.at(-1)!),
    String(cap),
    String(minAccounts),
    String(windowsMs.length),
    ...windowsMs.map(String),
    ...thresholds.map(String),
    ...sightings.flatMap((s) => [s.kind, s.member]),
  ];
}

/** The script's reply as breaches. */
export function breachesFromReply(reply: unknown, sightings: readonly Sighting[]): Breach[] {
  if (!Array.isArray(reply)) throw new Error("unexpected reply from the abuse windows script");
  return reply.map((item) => {
    if (!Array.isArray(item) || item.length !== 3 || !Array.isArray(item[2]))
      throw new Error("unexpected reply from the abuse windows script");
    const sighting = sightings[Number(item[0]) - 1];
    if (!sighting) throw new Error("unexpected reply from the abuse windows script");
    const flat = item[2] as unknown[];
    const entries = [];
    for (let i = 0; i + 1 < flat.length; i += 2) entries.push({ member: String(flat[i]), at: Number(flat[i + 1]) });
    return { kind: sighting.kind, subject: sighting.subject, key: sighting.key, windowMs: Number(item[1]), entries };
  });
}
