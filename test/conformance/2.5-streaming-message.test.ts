/**
 * SPEC 2.5, the streaming message `{type, content}`, on both streaming faces:
 * the WebSocket (text frames) and server-sent events (POST /v1/search with
 * Accept: text/event-stream, where each `data:` is the message and `event:`
 * repeats its type).
 */
import { expect } from "bun:test";
import { jsonOf } from "../helpers/app.ts";
import { clause } from "./clause.ts";
import { useSearchApp } from "./search-app.ts";

const s = useSearchApp();
const TYPES = ["response", "context", "error"];

function expectContext(content: unknown) {
  expect(Array.isArray(content)).toBe(true);
  (content as Record<string, any>[]).forEach((entry, i) => {
    expect(entry.id).toBe(i + 1);
    expect(Object.keys(entry.metadata).sort()).toEqual(["content", "title", "url"]);
  });
}

clause(
  "2.5 · ¶1",
  "every WebSocket message is a JSON text frame with exactly type and content, type one of response, context, error",
  async () => {
    const run = await s.socket({ prompt: "When was the Eiffel Tower completed?" });
    expect(run.raw.length).toBeGreaterThan(1);
    for (const raw of run.raw) {
      const message = JSON.parse(raw);
      expect(Object.keys(message).sort()).toEqual(["content", "type"]);
      expect(TYPES).toContain(message.type);
    }
  },
);

clause("2.5 · ¶1", "every server-sent event's data is {type, content} and its event name is the type", async () => {
  const streamed = await s.events({ prompt: "When was the Eiffel Tower completed?" });
  expect(streamed.status).toBe(200);
  expect(streamed.contentType).toContain("text/event-stream");
  expect(streamed.events.length).toBeGreaterThan(1);
  for (const { event, data } of streamed.events) {
    expect(Object.keys(data).sort()).toEqual(["content", "type"]);
    expect(TYPES).toContain(data.type);
    expect(event).toBe(data.type);
  }
});

clause("2.5 · ¶1", "context carries the sources: the context entries of 2.3", async () => {
  const run = await s.socket({ prompt: "What will the river bridge cost?" });
  const contexts = run.messages.filter((m) => m.type === "context");
  expect(contexts.length).toBe(1);
  expectContext(contexts[0]!.content);
  const streamed = await s.events({ prompt: "What will the river bridge cost?" });
  const sse = streamed.events.filter((e) => e.event === "context");
  expect(sse.length).toBe(1);
  expectContext(sse[0]!.data.content);
  expect(sse[0]!.data.content).toEqual(contexts[0]!.content);
});

clause("2.5 · ¶1", "response carries the answer: text pieces that join into the JSON face's answer", async () => {
  const json = await jsonOf(s.search({ prompt: "When was the Eiffel Tower completed?" }));
  const run = await s.socket({ prompt: "When was the Eiffel Tower completed?" });
  const pieces = run.messages.filter((m) => m.type === "response").map((m) => m.content);
  expect(pieces.length).toBeGreaterThan(0);
  for (const piece of pieces) expect(typeof piece).toBe("string");
  expect(pieces.join("")).toBe(json.response);
  const streamed = await s.events({ prompt: "When was the Eiffel Tower completed?" });
  expect(
    streamed.events
      .filter((e) => e.event === "response")
      .map((e) => e.data.content)
      .join(""),
  ).toBe(json.response);
});

clause("2.5 · ¶1", "with output_format, response carries the whole object in one message", async () => {
  const format = { completed_year: "integer", height_metres: "number" };
  const run = await s.socket({ prompt: "Eiffel Tower facts", output_format: format });
  expect(run.messages.filter((m) => m.type === "response")).toEqual([
    { type: "response", content: { completed_year: 1889, height_metres: 330 } },
  ]);
  const streamed = await s.events({ prompt: "Eiffel Tower facts", output_format: format });
  expect(streamed.events.filter((e) => e.event === "response").map((e) => e.data)).toEqual([
    { type: "response", content: { completed_year: 1889, height_metres: 330 } },
  ]);
});

clause("2.5 · ¶1", "context comes before the first response (the service's order)", async () => {
  const run = await s.socket({ prompt: "When was the Eiffel Tower completed?" });
  expect(run.messages[0]!.type).toBe("context");
  expect(run.messages.slice(1).every((m) => m.type === "response")).toBe(true);
});

clause("2.5 · ¶1", "error carries an error message: a string naming the problem", async () => {
  const run = await s.socket({ prompt: "x", output_format: { a: "text" } });
  expect(run.messages.length).toBe(1);
  expect(run.messages[0]!.type).toBe("error");
  expect(typeof run.messages[0]!.content).toBe("string");
  expect(run.messages[0]!.content).toContain("output_format");
  const missing = await s.socket({ source_blacklist: ["spam.test"] });
  expect(missing.messages).toEqual([{ type: "error", content: "body.prompt: Field required" }]);
});
