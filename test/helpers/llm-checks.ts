/**
 * Checks every language-model provider's tests make the same way, whatever
 * wire format the peer speaks: the model's deltas over the WebSocket, and
 * the fallback when the model keeps failing.
 */
import { expect } from "bun:test";
import { jsonOf, type TestApp } from "./app.ts";
import { openSocket } from "./websocket.ts";

const QUESTION = "When was the Eiffel Tower completed?";

/** The WebSocket sends the context first, then the answer in several deltas ending with its citation, then closes cleanly. */
export async function expectStreamedDeltas(app: TestApp, apiKey: string): Promise<void> {
  const run = await openSocket(`${app.url.replace("http", "ws")}/v1/ws/search`, {
    headers: { "X-API-Key": apiKey },
    send: JSON.stringify({ prompt: QUESTION }),
  });
  expect(run.messages[0]!.type).toBe("context");
  const deltas = run.messages.filter((m) => m.type === "response");
  expect(deltas.length).toBeGreaterThan(3);
  expect(deltas.map((d) => d.content).join("")).toMatch(/\[1\]$/);
  expect(run.closeCode).toBe(1000);
}

/** With the model failing every call, the search still answers: key-phrase planning and an extractive answer, said in the notes. */
export async function expectExtractiveFallback(search: (body: unknown) => Promise<Response>): Promise<void> {
  const body = await jsonOf(search({ prompt: QUESTION }));
  expect(body.info.planner).toBe("keyphrases");
  expect(body.response).toContain("1889");
  expect(body.info.notes.join(" ")).toContain("extractively");
}
