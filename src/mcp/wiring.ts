import type { DatabaseHandle } from "../../db/client.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { MemorySessionStore } from "./memory-session-store.ts";
import { PostgresSessionStore } from "./postgres-session-store.ts";
import { RedisNotices } from "./redis-notices.ts";
import { RedisSessionStore, UpstashSessionStore } from "./redis-session-store.ts";
import { DatabaseNotices, MemoryNotices, type SessionNotices } from "./session-notices.ts";
import type { McpSessionStore } from "./session-store.ts";
import { McpSessions } from "./sessions.ts";

/** A session's request waits this long for Upstash at most: there is nothing to fall back on. */
const UPSTASH_TIMEOUT_MS = 2_000;

/**
 * The sessions where the fleet shares them: in Redis with pub/sub when
 * REDIS_URL is set; in Upstash (REST) with the database's NOTIFY, as REST
 * cannot subscribe; in Postgres with its NOTIFY; in memory on the embedded
 * database, which only one process can open.
 */
export async function createMcpSessions(
  config: Pick<Config, "rateLimit">,
  deps: { database: DatabaseHandle; clock: Clock; log: Logger },
): Promise<McpSessions> {
  const { redisUrl, upstash, keyPrefix } = config.rateLimit;
  let store: McpSessionStore & { init?(): Promise<void> };
  let notices: SessionNotices;
  if (redisUrl) {
    store = new RedisSessionStore(redisUrl, keyPrefix);
    notices = new RedisNotices(redisUrl, keyPrefix, deps.log);
  } else if (upstash) {
    store = new UpstashSessionStore(upstash.url, upstash.token, UPSTASH_TIMEOUT_MS, keyPrefix);
    notices = new DatabaseNotices(deps.database);
  } else if (deps.database.kind === "postgres") {
    store = new PostgresSessionStore(deps.database.db);
    notices = new DatabaseNotices(deps.database);
  } else {
    store = new MemorySessionStore();
    notices = new MemoryNotices();
  }
  await store.init?.().catch((error: unknown) => deps.log.warn("MCP session store not reachable at start", { store: store.name, error }));
  const sessions = new McpSessions(store, notices, () => deps.clock.now(), deps.log);
  // Without notices a stream still reads its log at each keep-alive: events elsewhere arrive late, none is lost.
  await sessions.start().catch((error: unknown) => deps.log.warn("MCP session notices unavailable", { notices: notices.name, error }));
  return sessions;
}
