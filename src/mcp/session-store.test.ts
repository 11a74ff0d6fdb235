/**
 * The session stores keep one contract: memory always, Postgres on the test
 * database (PGlite, or Postgres with TEST_DATABASE_URL), Redis with
 * TEST_REDIS_URL. Time is the caller's `now`.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { accounts } from "../../db/schema.ts";
import { freshDatabase, type TestDatabase } from "../../test/helpers/database.ts";
import { TEST_REDIS_URL } from "../../test/helpers/env.ts";
import { clearPrefix, uniquePrefix } from "../../test/helpers/redis.ts";
import { MemorySessionStore } from "./memory-session-store.ts";
import { PostgresSessionStore } from "./postgres-session-store.ts";
import { RedisSessionStore } from "./redis-session-store.ts";
import type { EventLogLimits, McpSessionStore, SessionLimits } from "./session-store.ts";

const LIMITS: SessionLimits = { perAccount: 2, total: 3, idleMs: 60_000 };
const INIT = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } };
const ACCOUNTS = ["a", "b", "c"];

const note = (n: number): JSONRPCMessage => ({ jsonrpc: "2.0", method: "notifications/message", params: { n } });
const big = (fill: string): JSONRPCMessage => ({ jsonrpc: "2.0", method: "x", params: { text: fill.repeat(100) } });

type MakeStore = (log: EventLogLimits) => Promise<McpSessionStore>;
const databases: TestDatabase[] = [];
const prefixes: string[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
  for (const prefix of prefixes) await clearPrefix(prefix);
});

const kinds: [string, MakeStore][] = [
  ["memory", async (log) => new MemorySessionStore(LIMITS, log)],
  [
    "postgres",
    async (log) => {
      const database = await freshDatabase();
      databases.push(database);
      // A session belongs to an account (a foreign key).
      await database.handle.db.insert(accounts).values(ACCOUNTS.map((id) => ({ id, name: id })));
      return new PostgresSessionStore(database.handle.db, LIMITS, log);
    },
  ],
];
if (TEST_REDIS_URL)
  kinds.push([
    "redis",
    async (log) => {
      const prefix = uniquePrefix("mcp");
      prefixes.push(prefix);
      return new RedisSessionStore(TEST_REDIS_URL!, prefix, LIMITS, log);
    },
  ]);

/** A session id as the route takes them (a UUID's shape), numbered for reading. */
const sid = (name: string) => `00000000-0000-4000-8000-${Buffer.from(name).toString("hex").padStart(12, "0")}`;

describe.each(kinds)("the %s session store", (_, make) => {
  test("sessions are bounded per account and in all, the least recently used closed first; only the owner finds one; idle ones are gone", async () => {
    const store = await make({ events: 256, bytes: 512 * 1024 });
    const open = (name: string, account: string, now: number) => store.open({ id: sid(name), accountId: account, init: INIT }, now);
    expect(await open("a1", "a", 0)).toEqual([]);
    expect(await open("a2", "a", 10)).toEqual([]);
    // A third for the account closes its least recently used.
    expect(await open("a3", "a", 20)).toEqual([sid("a1")]);
    expect(await store.touch(sid("a1"), "a", 25)).toBeNull();
    expect(await store.touch(sid("a2"), "b", 25)).toBeNull();
    expect(await store.touch(sid("a2"), "a", 30)).toEqual({ id: sid("a2"), accountId: "a", init: INIT, lastEvent: 0 });
    expect(await open("b1", "b", 40)).toEqual([]);
    // The whole is full: the least recently used of anyone's goes (a3, since a2 was just touched).
    expect(await open("c1", "c", 50)).toEqual([sid("a3")]);
    expect(await store.touch(sid("a3"), "a", 55)).toBeNull();
    expect((await store.sessionsOf("a", 60)).sort()).toEqual([sid("a2")]);
    // Idle past the bound: gone, and not counted.
    const later = 50 + LIMITS.idleMs + 1;
    expect(await store.touch(sid("b1"), "b", later)).toBeNull();
    expect(await store.eventsFrom(sid("c1"), 0, later)).toBeNull();
    expect(await store.sessionsOf("c", later)).toEqual([]);
    expect(await open("c2", "c", later)).toEqual([]);
    expect(await store.sessionsOf("c", later)).toEqual([sid("c2")]);
  });

  test("the log gives every stream's events from an id on, oldest first, and keeps at most its count", async () => {
    const store = await make({ events: 3, bytes: 10_000 });
    await store.open({ id: sid("s"), accountId: "a", init: INIT }, 0);
    const ids: number[] = [];
    for (const [stream, message] of [
      ["A", {}],
      ["B", note(0)],
      ["A", note(1)],
      ["A", note(2)],
    ] as const) {
      const id = await store.append(sid("s"), stream, message as JSONRPCMessage);
      expect(id).toBeGreaterThan(ids.at(-1) ?? 0);
      ids.push(id!);
    }
    const [, other, one, two] = ids as [number, number, number, number];
    // Four events, three kept: the oldest (the priming event) is gone.
    expect(await store.eventsFrom(sid("s"), 0, 1)).toEqual([
      { id: other, streamId: "B", message: note(0) },
      { id: one, streamId: "A", message: note(1) },
      { id: two, streamId: "A", message: note(2) },
    ]);
    expect((await store.eventsFrom(sid("s"), one, 1))!.map((e) => e.id)).toEqual([one, two]);
    expect(await store.eventsFrom(sid("s"), two + 1, 1)).toEqual([]);
    expect((await store.touch(sid("s"), "a", 2))!.lastEvent).toBe(two);
  });

  test("the log keeps at most its bytes, dropping the oldest but never the newest", async () => {
    const size = JSON.stringify(big("y")).length;
    const store = await make({ events: 100, bytes: Math.floor(size * 1.5) });
    await store.open({ id: sid("s"), accountId: "a", init: INIT }, 0);
    await store.append(sid("s"), "A", big("y"));
    const kept = await store.append(sid("s"), "A", big("z"));
    expect(await store.eventsFrom(sid("s"), 0, 1)).toEqual([{ id: kept!, streamId: "A", message: big("z") }]);
    const huge: JSONRPCMessage = { jsonrpc: "2.0", method: "x", params: { text: "w".repeat(size * 2) } };
    const newest = await store.append(sid("s"), "A", huge);
    expect((await store.eventsFrom(sid("s"), 0, 1))!.map((e) => e.id)).toEqual([newest!]);
  });

  test("an ended session is gone with its log, and nothing is logged for it", async () => {
    const store = await make({ events: 256, bytes: 512 * 1024 });
    await store.open({ id: sid("s"), accountId: "a", init: INIT }, 0);
    await store.append(sid("s"), "A", note(1));
    expect(await store.end(sid("s"))).toBe(true);
    expect(await store.end(sid("s"))).toBe(false);
    expect(await store.touch(sid("s"), "a", 1)).toBeNull();
    expect(await store.append(sid("s"), "A", note(2))).toBeNull();
    expect(await store.eventsFrom(sid("s"), 0, 1)).toBeNull();
    expect(await store.sessionsOf("a", 1)).toEqual([]);
    await store.close();
  });
});
