import { expect, test } from "bun:test";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { SessionEventLog } from "./event-log.ts";

const note = (n: number): JSONRPCMessage => ({ jsonrpc: "2.0", method: "notifications/message", params: { n } });

async function replay(log: SessionEventLog, after: string) {
  const sent: [string, JSONRPCMessage][] = [];
  const stream = await log.replayEventsAfter(after, { send: async (id, message) => void sent.push([id, message]) });
  return { stream, sent };
}

test("replays what its stream sent after the cursor, skipping priming events and other streams", async () => {
  const log = new SessionEventLog();
  const primed = await log.storeEvent("a", {} as JSONRPCMessage);
  await log.storeEvent("b", note(0));
  const one = await log.storeEvent("a", note(1));
  await log.storeEvent("a", note(2));
  expect(await log.getStreamIdForEventId(one)).toBe("a");
  const { stream, sent } = await replay(log, primed);
  expect(stream).toBe("a");
  expect(sent.map(([, m]) => (m as unknown as { params: { n: number } }).params.n)).toEqual([1, 2]);
  expect((await replay(log, "no-such-id")).stream).toBe("");
});

test("keeps at most its count and its bytes, dropping the oldest", async () => {
  const log = new SessionEventLog({ events: 3, bytes: 10_000 });
  const first = await log.storeEvent("a", note(1));
  for (let i = 2; i <= 4; i++) await log.storeEvent("a", note(i));
  expect(await log.getStreamIdForEventId(first)).toBeUndefined();
  const small = new SessionEventLog({ events: 100, bytes: 150 });
  const big = await small.storeEvent("a", { jsonrpc: "2.0", method: "x", params: { text: "y".repeat(100) } });
  await small.storeEvent("a", { jsonrpc: "2.0", method: "x", params: { text: "z".repeat(100) } });
  expect(await small.getStreamIdForEventId(big)).toBeUndefined();
});
