/**
 * One failure, three faces: a run past its deadline is a 504 on the JSON
 * face, and the SSE stream and the WebSocket that end with an `error`
 * message record the same 504 in usage (before, SSE recorded 500 for every
 * failure and the WebSocket chose statuses by hand).
 */
import { expect, test } from "bun:test";
import { useSearchApp } from "../conformance/search-app.ts";

const s = useSearchApp({ SEARCH_DEADLINE_MS: "1000", PROVIDER_TIMEOUT_MS: "10000", SEARCH_HEDGING: "false" });

async function statusesOf(route: string): Promise<number[]> {
  for (let i = 0; i < 40; i++) {
    const rows = await s.app.db.query.usageRecords.findMany({ where: (u, { eq }) => eq(u.route, route) });
    if (rows.length) return rows.map((r) => r.status);
    await Bun.sleep(100);
  }
  return [];
}

test("a run past the deadline: 504 on JSON, and the same 504 in usage for SSE and the WebSocket", async () => {
  s.world.searxng.setLatency(3_000);
  s.world.brave.setLatency(3_000);
  try {
    const json = await s.search({ prompt: "river bridge" });
    expect(json.status).toBe(504);
    const sse = await s.events({ prompt: "river bridge" });
    expect(sse.events.at(-1)?.event).toBe("error");
    const socket = await s.socket({ prompt: "river bridge" });
    expect(socket.messages.at(-1)?.type).toBe("error");
    expect(await statusesOf("POST /v1/search")).toEqual([504]);
    expect(await statusesOf("POST /v1/search (stream)")).toEqual([504]);
    expect(await statusesOf("WS /v1/ws/search")).toEqual([504]);
  } finally {
    s.world.searxng.setLatency(0);
    s.world.brave.setLatency(0);
  }
});
