import { expect, test } from "bun:test";
import type { McpSession } from "./sessions.ts";
import { McpSessions } from "./sessions.ts";

/** A session whose server records what it was asked to do. */
function session(accountId: string, now: number, log: string[]): McpSession {
  const server = {
    close: async () => void log.push(`close ${accountId}`),
    sendToolListChanged: async () => void log.push(`changed ${accountId}`),
  };
  return { accountId, server, transport: {}, lastSeen: now, listening: false } as unknown as McpSession;
}

test("sessions are bounded per account and dropped when idle; only the owner finds one", () => {
  let now = 0;
  const log: string[] = [];
  const sessions = new McpSessions(() => now, { perAccount: 2, total: 3, idleMs: 1_000 });
  sessions.add("a1", session("a", now, log));
  now = 10;
  sessions.add("a2", session("a", now, log));
  now = 20;
  // A third for the account closes its least recently used.
  sessions.add("a3", session("a", now, log));
  expect(sessions.find("a1", "a")).toBeNull();
  expect(log).toEqual(["close a"]);
  expect(sessions.find("a2", "b")).toBeNull();
  now = 30;
  expect(sessions.find("a2", "a")).not.toBeNull();
  now = 40;
  sessions.add("b1", session("b", now, log));
  now = 50;
  // The whole is full: the least recently used of anyone's goes (a3, since a2 was just found).
  sessions.add("c1", session("c", now, log));
  expect(sessions.find("a3", "a")).toBeNull();
  sessions.toolsChanged("b");
  expect(log.at(-1)).toBe("changed b");
  // Idle past the bound: gone.
  now = 5_000;
  expect(sessions.find("b1", "b")).toBeNull();
});
