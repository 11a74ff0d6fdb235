/**
 * The notices MCP sessions' instances tell each other (src/mcp/session-notices.ts): every listener hears every
 * notice, its publisher's own included, in memory, over the database's NOTIFY (PGlite, or Postgres with
 * TEST_DATABASE_URL) and over Redis pub/sub; a Redis subscription lost with Redis is made again once Redis is back,
 * and the listener is told it may have missed some. The Redis cases need TEST_REDIS_URL and redis-server (a private
 * one, killed and restarted).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { MemoryNotices, DatabaseNotices, type SessionNotice, type SessionNotices } from "../../src/mcp/session-notices.ts";
import { RedisNotices } from "../../src/mcp/redis-notices.ts";
import { createLogger } from "../../src/log.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { TEST_REDIS_URL } from "../helpers/env.ts";
import { uniquePrefix } from "../helpers/redis.ts";
import { privateRedis, redisServerBinary, type PrivateRedis } from "../helpers/redis-server.ts";
import { waitFor } from "../helpers/wait.ts";

const redisRunnable = Boolean(TEST_REDIS_URL && redisServerBinary);
const log = createLogger({ level: "silent" });
const databases: TestDatabase[] = [];
const redises: PrivateRedis[] = [];
const closing: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closing) await close();
  for (const database of databases) await database.drop();
  for (const redis of redises) await redis.kill();
});

/** Two instances' notices on one medium. */
type Pair = () => Promise<[SessionNotices, SessionNotices]>;

const media: [string, Pair][] = [
  [
    "memory",
    async () => {
      const shared = new MemoryNotices();
      return [shared, shared];
    },
  ],
  [
    "database NOTIFY",
    async () => {
      const database = await freshDatabase();
      databases.push(database);
      return [new DatabaseNotices(database.handle), new DatabaseNotices(database.handle)];
    },
  ],
];
if (redisRunnable)
  media.push([
    "Redis pub/sub",
    async () => {
      const redis = await privateRedis();
      redises.push(redis);
      const prefix = uniquePrefix("notices");
      return [new RedisNotices(redis.url, prefix, log), new RedisNotices(redis.url, prefix, log)];
    },
  ]);

function listener() {
  const heard: SessionNotice[] = [];
  let reconnected = 0;
  return {
    heard,
    reconnections: () => reconnected,
    listener: { heard: (notice: SessionNotice) => void heard.push(notice), reconnected: () => void reconnected++ },
  };
}

describe.each(media)("session notices over %s", (_, pair) => {
  test("every listener hears every notice, its publisher's own included", async () => {
    const [one, two] = await pair();
    const first = listener();
    const second = listener();
    const stops = [await one.listen(first.listener), await two.listen(second.listener)];
    closing.push(async () => {
      for (const stop of stops) await stop();
      await one.close();
      await two.close();
    });
    await one.publish({ kind: "event", sessionId: "s1" });
    await two.publish({ kind: "ended", sessionId: "s2" });
    const both: SessionNotice[] = [
      { kind: "event", sessionId: "s1" },
      { kind: "ended", sessionId: "s2" },
    ];
    await waitFor(() => first.heard.length === 2 && second.heard.length === 2, "both notices by both listeners");
    expect(first.heard).toEqual(both);
    expect(second.heard).toEqual(both);
  });
});

describe.if(redisRunnable)("a Redis subscription lost with Redis", () => {
  test("is made again once Redis is back; the listener is told it may have missed notices, and hears the next ones", async () => {
    const redis = await privateRedis();
    redises.push(redis);
    const notices = new RedisNotices(redis.url, uniquePrefix("notices"), log);
    const heard = listener();
    const stop = await notices.listen(heard.listener);
    closing.push(async () => {
      await stop();
      await notices.close();
    });
    await notices.publish({ kind: "event", sessionId: "before" });
    await waitFor(() => heard.heard.length === 1, "the notice before the outage");
    await redis.kill();
    await Bun.sleep(200);
    await redis.start();
    await waitFor(() => heard.reconnections() === 1, "the subscription made again", 15_000);
    await notices.publish({ kind: "event", sessionId: "after" });
    await waitFor(() => heard.heard.length === 2, "the notice after the outage");
    expect(heard.heard.map((n) => n.sessionId)).toEqual(["before", "after"]);
  });
});
