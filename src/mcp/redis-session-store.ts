/**
 * The sessions in Redis, each verb one Lua script run (one round trip, and
 * atomic, so two instances opening sessions at once keep the bounds), over
 * RESP with Bun's client or over Upstash's REST API alike.
 *
 * Keys under the deployment's prefix: `mcp:s:<id>` the session (a hash: its
 * account, initialize params, last use, its log's newest id and size),
 * `mcp:e:<id>` its log (a sorted set by event id, each member
 * "<id> <stream> <json>"), `mcp:a:<account>` and `mcp:all` its account's and
 * everyone's sessions by last use. Times are the service's clock (ARGV); the
 * keys also expire after the idle bound by Redis's clock, to free the memory
 * of sessions nobody ends.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LuaScript, RespConnection, UpstashConnection, type ScriptConnection } from "../limits/redis-connection.ts";
import {
  encodeMessage,
  EVENT_LOG_LIMITS,
  SESSION_LIMITS,
  type EventLogLimits,
  type LoggedEvent,
  type McpSessionStore,
  type SessionInit,
  type SessionLimits,
  type SessionRecord,
} from "./session-store.ts";

/** KEYS: session, account's set, everyone's set. ARGV: prefix, id, account, init, now, idle ms, per account, total. */
const OPEN = new LuaScript(`
local session, account, all = KEYS[1], KEYS[2], KEYS[3]
local prefix, id, owner, init = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local now, idle, per_account, total = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
redis.call('ZREMRANGEBYSCORE', all, '-inf', '(' .. (now - idle))
redis.call('ZREMRANGEBYSCORE', account, '-inf', '(' .. (now - idle))
local closed = {}
-- Out of the set it was found in whatever else is known of it, so each loop ends.
local function drop(victim, set)
  local of = redis.call('HGET', prefix .. 's:' .. victim, 'account')
  redis.call('DEL', prefix .. 's:' .. victim, prefix .. 'e:' .. victim)
  redis.call('ZREM', set, victim)
  redis.call('ZREM', all, victim)
  if of then redis.call('ZREM', prefix .. 'a:' .. of, victim) end
  closed[#closed + 1] = victim
end
while redis.call('ZCARD', account) >= per_account do drop(redis.call('ZRANGE', account, 0, 0)[1], account) end
while redis.call('ZCARD', all) >= total do drop(redis.call('ZRANGE', all, 0, 0)[1], all) end
redis.call('HSET', session, 'account', owner, 'init', init, 'seen', now, 'seq', 0, 'bytes', 0)
redis.call('PEXPIRE', session, idle)
redis.call('ZADD', account, now, id)
redis.call('PEXPIRE', account, idle)
redis.call('ZADD', all, now, id)
return closed
`);

/** KEYS: session, log, account's set, everyone's set. ARGV: id, account, now, idle ms. Returns {init, newest event id} or nil. */
const TOUCH = new LuaScript(`
local found = redis.call('HMGET', KEYS[1], 'account', 'init', 'seen', 'seq')
local now, idle = tonumber(ARGV[3]), tonumber(ARGV[4])
if not found[1] or found[1] ~= ARGV[2] or tonumber(found[3]) < now - idle then return false end
redis.call('HSET', KEYS[1], 'seen', now)
redis.call('PEXPIRE', KEYS[1], idle)
redis.call('PEXPIRE', KEYS[2], idle)
redis.call('ZADD', KEYS[3], now, ARGV[1])
redis.call('PEXPIRE', KEYS[3], idle)
redis.call('ZADD', KEYS[4], now, ARGV[1])
return {found[2], found[4]}
`);

/** KEYS: session, log, everyone's set. ARGV: id, prefix. Returns 1 when the session was there. */
const END = new LuaScript(`
local owner = redis.call('HGET', KEYS[1], 'account')
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[1])
if not owner then return 0 end
redis.call('ZREM', ARGV[2] .. 'a:' .. owner, ARGV[1])
return 1
`);

/** KEYS: account's set. ARGV: now, idle ms. */
const OF_ACCOUNT = new LuaScript(`
return redis.call('ZRANGEBYSCORE', KEYS[1], tonumber(ARGV[1]) - tonumber(ARGV[2]), '+inf')
`);

/**
 * KEYS: session, log. ARGV: stream, message json, max events, max bytes, idle ms.
 * Returns the event's id, or nil when the session is gone (nothing is stored for it).
 */
const APPEND = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
local entry = seq .. ' ' .. ARGV[1] .. ' ' .. ARGV[2]
local bytes = redis.call('HINCRBY', KEYS[1], 'bytes', #ARGV[2])
redis.call('ZADD', KEYS[2], seq, entry)
local count = redis.call('ZCARD', KEYS[2])
local max_events, max_bytes = tonumber(ARGV[3]), tonumber(ARGV[4])
while count > 1 and (count > max_events or bytes > max_bytes) do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, 0)
  local _, _, json = string.find(oldest, '^%d+ %S+ (.*)$')
  bytes = redis.call('HINCRBY', KEYS[1], 'bytes', -#json)
  count = count - 1
end
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[5]))
return seq
`);

/** KEYS: session, log. ARGV: from id, now, idle ms. Returns the entries from that id on, or nil when the session is gone. */
const EVENTS_FROM = new LuaScript(`
local seen = redis.call('HGET', KEYS[1], 'seen')
if not seen or tonumber(seen) < tonumber(ARGV[2]) - tonumber(ARGV[3]) then return false end
return redis.call('ZRANGEBYSCORE', KEYS[2], ARGV[1], '+inf')
`);

const SCRIPTS = [OPEN, TOUCH, END, OF_ACCOUNT, APPEND, EVENTS_FROM];

export class ScriptedSessionStore implements McpSessionStore {
  private readonly prefix: string;

  constructor(
    readonly name: "redis" | "upstash",
    private readonly connection: ScriptConnection,
    keyPrefix: string,
    private readonly limits: SessionLimits = SESSION_LIMITS,
    private readonly log: EventLogLimits = EVENT_LOG_LIMITS,
  ) {
    this.prefix = `${keyPrefix}mcp:`;
  }

  /** Loads the scripts, so the first requests need no EVAL. */
  async init(): Promise<void> {
    await Promise.all(SCRIPTS.map((script) => this.connection.load(script)));
  }

  async open(session: { id: string; accountId: string; init: SessionInit }, now: number): Promise<string[]> {
    const reply = await this.connection.run(
      OPEN,
      [this.key("s", session.id), this.key("a", session.accountId), `${this.prefix}all`],
      [
        this.prefix,
        session.id,
        session.accountId,
        JSON.stringify(session.init),
        String(now),
        String(this.limits.idleMs),
        String(this.limits.perAccount),
        String(this.limits.total),
      ],
    );
    return strings(reply);
  }

  async touch(id: string, accountId: string, now: number): Promise<SessionRecord | null> {
    const reply = await this.connection.run(
      TOUCH,
      [this.key("s", id), this.key("e", id), this.key("a", accountId), `${this.prefix}all`],
      [id, accountId, String(now), String(this.limits.idleMs)],
    );
    if (!Array.isArray(reply)) return null;
    const [init, seq] = strings(reply);
    return { id, accountId, init: JSON.parse(init!) as SessionInit, lastEvent: Number(seq) };
  }

  async end(id: string): Promise<boolean> {
    const reply = await this.connection.run(END, [this.key("s", id), this.key("e", id), `${this.prefix}all`], [id, this.prefix]);
    return Number(reply) === 1;
  }

  async sessionsOf(accountId: string, now: number): Promise<string[]> {
    return strings(await this.connection.run(OF_ACCOUNT, [this.key("a", accountId)], [String(now), String(this.limits.idleMs)]));
  }

  async append(sessionId: string, streamId: string, message: JSONRPCMessage): Promise<number | null> {
    const reply = await this.connection.run(
      APPEND,
      [this.key("s", sessionId), this.key("e", sessionId)],
      [streamId, encodeMessage(message), String(this.log.events), String(this.log.bytes), String(this.limits.idleMs)],
    );
    return reply === null || reply === undefined ? null : Number(reply);
  }

  async eventsFrom(sessionId: string, from: number, now: number): Promise<LoggedEvent[] | null> {
    const reply = await this.connection.run(
      EVENTS_FROM,
      [this.key("s", sessionId), this.key("e", sessionId)],
      [String(from), String(now), String(this.limits.idleMs)],
    );
    if (!Array.isArray(reply)) return null;
    return strings(reply).map(parseEntry);
  }

  async close(): Promise<void> {
    this.connection.close();
  }

  private key(kind: "s" | "e" | "a", id: string): string {
    return `${this.prefix}${kind}:${id}`;
  }
}

/** RESP with Bun's client, on the limiter's connection settings: while Redis is away a request fails at once. */
export class RedisSessionStore extends ScriptedSessionStore {
  constructor(url: string, keyPrefix: string, limits?: SessionLimits, log?: EventLogLimits) {
    super("redis", new RespConnection(url), keyPrefix, limits, log);
  }
}

/** Upstash's REST API: each verb one HTTPS request. */
export class UpstashSessionStore extends ScriptedSessionStore {
  constructor(url: string, token: string, timeoutMs: number, keyPrefix: string, limits?: SessionLimits, log?: EventLogLimits) {
    super("upstash", new UpstashConnection(url, token, timeoutMs), keyPrefix, limits, log);
  }
}

function strings(reply: unknown): string[] {
  return Array.isArray(reply) ? reply.map(String) : [];
}

/** "<id> <stream> <json>": stream ids are the SDK's UUIDs or its "_GET_stream", never with a space. */
function parseEntry(entry: string): LoggedEvent {
  const first = entry.indexOf(" ");
  const second = entry.indexOf(" ", first + 1);
  return {
    id: Number(entry.slice(0, first)),
    streamId: entry.slice(first + 1, second),
    message: JSON.parse(entry.slice(second + 1)) as JSONRPCMessage,
  };
}
