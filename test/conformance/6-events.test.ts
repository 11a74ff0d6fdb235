/**
 * SPEC 6, events: no webhooks; the streaming-search protocol on a real
 * WebSocket (connect with X-API-Key, send one JSON message, read
 * `{type, content}` messages, stop after an error).
 */
import { expect } from "bun:test";
import { jsonOf } from "../helpers/app.ts";
import { minimalPng } from "../helpers/fixtures/images.ts";
import type { SocketRun } from "../helpers/websocket.ts";
import { clause } from "./clause.ts";
import { useSearchApp } from "./search-app.ts";

const s = useSearchApp();
const hosts = (run: SocketRun) =>
  (run.messages.find((m) => m.type === "context")!.content as { metadata: { url: string } }[]).map((c) => new URL(c.metadata.url).hostname);
const answer = (run: SocketRun) => run.messages.filter((m) => m.type === "response").map((m) => m.content);

/** A socket that sends each of `frames` in turn as soon as it opens, and records everything until the close. */
function socketSending(frames: string[], options: { waitMs?: number } = {}): Promise<SocketRun & { closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(s.wsUrl, { headers: { "X-API-Key": s.apiKey } } as unknown as string[]);
    const run = { messages: [] as { type: string; content: unknown }[], raw: [] as string[], closeCode: 0, protocol: "", closedAfterMs: 0 };
    const started = performance.now();
    const timer = setTimeout(() => {
      if (options.waitMs) {
        socket.close(1000);
        return;
      }
      reject(new Error(`socket still open: ${JSON.stringify(run.raw)}`));
    }, options.waitMs ?? 15_000);
    socket.onopen = () => {
      for (const frame of frames) socket.send(frame);
    };
    socket.onmessage = (event) => {
      run.raw.push(String(event.data));
      run.messages.push(JSON.parse(String(event.data)));
    };
    socket.onclose = (event) => {
      clearTimeout(timer);
      run.closeCode = event.code;
      run.closedAfterMs = performance.now() - started;
      resolve(run);
    };
  });
}

function expectOneErrorThenClose(run: SocketRun, words?: string) {
  expect(run.messages.length).toBe(1);
  expect(run.messages[0]!.type).toBe("error");
  expect(typeof run.messages[0]!.content).toBe("string");
  if (words) expect(run.messages[0]!.content).toContain(words);
  expect(run.closeCode).toBe(1000);
}

// The spec shows no webhooks. This service adds them for tasks (docs/api/webhooks.md), an extension a Critique client
// never meets: nothing is pushed to a URL nobody gave, and the only webhook routes are the extension's own.
clause("6 · ¶1", "no webhook is pushed unasked: the only webhook routes are the tasks extension's secret and deliveries", async () => {
  const document = await jsonOf(s.app.fetch("/openapi.json"));
  expect(Object.keys(document.webhooks ?? {})).toEqual([]);
  expect(Object.keys(document.paths).filter((p) => /webhook|callback|notif/i.test(p))).toEqual([
    "/v1/webhooks/secret",
    "/v1/webhooks/secret/rotate",
    "/v1/webhooks/deliveries",
    "/v1/webhooks/deliveries/{delivery_id}",
    "/v1/webhooks/deliveries/{delivery_id}/redeliver",
  ]);
  for (const path of ["/v1/webhooks", "/v1/webhook"]) {
    const response = await s.call("POST", path, { url: "https://example.com/hook" });
    expect(response.status).toBe(404);
  }
  // An account that never gave a webhook URL has no deliveries.
  expect((await jsonOf(s.call("GET", "/v1/webhooks/deliveries"))).data).toEqual([]);
});

clause("6 · ¶1", "the pushed messages are the streaming-search messages: only response, context and error", async () => {
  const run = await s.socket({ prompt: "What will the river bridge cost?" });
  expect(new Set(run.messages.map((m) => m.type))).toEqual(new Set(["context", "response"]));
});

clause("6.1", "a client connects with X-API-Key and sends one JSON message with a prompt", async () => {
  const run = await s.socket({ prompt: "When was the Eiffel Tower completed?" });
  expect(run.closeCode).toBe(1000);
  expect(answer(run).join("")).toContain("1889");
});

clause("6.1", "prompt is required and must be a string", async () => {
  expectOneErrorThenClose(await s.socket({ source_blacklist: ["spam.test"] }), "body.prompt: Field required");
  expectOneErrorThenClose(await s.socket({ prompt: 42 }), "body.prompt");
});

clause("6.1", "image is optional, with 2.1's rules: base64 data is accepted, an http:// URL is refused", async () => {
  const png = Buffer.from(minimalPng()).toString("base64");
  for (const image of [png, `data:image/png;base64,${png}`]) {
    const run = await s.socket({ prompt: "When was the Eiffel Tower completed?", image });
    expect(run.messages[0]!.type).toBe("context");
    expect(answer(run).join("")).toContain("1889");
  }
  expectOneErrorThenClose(await s.socket({ prompt: "What is this?", image: "http://images.test/photo.png" }), "https://");
  expectOneErrorThenClose(await s.socket({ prompt: "What is this?", image: "https://images.test/photo" }), "body.image");
});

clause("6.1", "source_blacklist is optional and excludes its domains", async () => {
  const open = await s.socket({ prompt: "What will the river bridge cost?" });
  expect(hosts(open)).toContain("spam.test");
  const closed = await s.socket({ prompt: "What will the river bridge cost?", source_blacklist: ["spam.test"] });
  expect(hosts(closed).length).toBeGreaterThan(0);
  expect(hosts(closed)).not.toContain("spam.test");
});

clause("6.1", "source_whitelist is accepted as the alternative to the blacklist; both non-empty is an error", async () => {
  const run = await s.socket({ prompt: "What will the river bridge cost?", source_whitelist: ["blog.test"] });
  expect(new Set(hosts(run))).toEqual(new Set(["blog.test"]));
  expectOneErrorThenClose(
    await s.socket({ prompt: "river bridge", source_whitelist: ["blog.test"], source_blacklist: ["spam.test"] }),
    "source_whitelist",
  );
});

clause("6.1", "output_format is optional, with types string, number, boolean, integer, array", async () => {
  const run = await s.socket({
    prompt: "Eiffel Tower facts",
    output_format: { completed_year: "integer", height_metres: "number", designer: "string", in_paris: "boolean", facts: "array" },
  });
  const responses = run.messages.filter((m) => m.type === "response");
  expect(responses.length).toBe(1);
  const content = responses[0]!.content as Record<string, unknown>;
  expect(Object.keys(content).sort()).toEqual(["completed_year", "designer", "facts", "height_metres", "in_paris"]);
  expect(content.completed_year).toBe(1889);
  expect(content.height_metres).toBe(330);
  expectOneErrorThenClose(await s.socket({ prompt: "x", output_format: { a: "date" } }), "output_format");
});

clause("6.1", 'empty options mean not given: output_format {}, [] lists and image "" behave like the fields left out', async () => {
  const absent = await s.socket({ prompt: "What will the river bridge cost?" });
  const empty = await s.socket({
    prompt: "What will the river bridge cost?",
    output_format: {},
    source_blacklist: [],
    source_whitelist: [],
    image: "",
  });
  expect(empty.messages.map((m) => m.type)).toEqual(absent.messages.map((m) => m.type));
  expect(hosts(empty).sort()).toEqual(hosts(absent).sort());
  expect(answer(empty).join("")).toBe(answer(absent).join(""));
  for (const piece of answer(empty)) expect(typeof piece).toBe("string");
});

clause("6.1", "unknown fields in the message are ignored, also once the HTTP face has served a search", async () => {
  // POST /v1/search first: its validator must not change what the WebSocket accepts.
  expect((await s.search({ prompt: "When was the Eiffel Tower completed?" })).status).toBe(200);
  const run = await s.socket({ prompt: "When was the Eiffel Tower completed?", stream: true, model: "anything" });
  expect(run.messages[0]).toMatchObject({ type: "context" });
  expect(answer(run).join("")).toContain("1889");
});

clause("6.2", "an error message's text is never empty", async () => {
  expect((await s.search({ prompt: "When was the Eiffel Tower completed?" })).status).toBe(200);
  for (const body of [{ prompt: "x", extra: 1 }, { prompt: "" }, { prompt: "x", output_format: { a: "text" } }]) {
    const run = await s.socket(body);
    for (const message of run.messages.filter((m) => m.type === "error")) expect((message.content as string).length).toBeGreaterThan(0);
  }
});

clause("6.1", "a message that is not JSON, or not an object, is an error", async () => {
  expectOneErrorThenClose(await s.socket("this is not json"), "JSON");
  expectOneErrorThenClose(await s.socket(JSON.stringify(["a", "list"])));
});

clause("6.2", "the server sends JSON text messages {type, content}: context (the sources), then response (the answer)", async () => {
  const run = await s.socket({ prompt: "When was the Eiffel Tower completed?" });
  for (const raw of run.raw) expect(Object.keys(JSON.parse(raw)).sort()).toEqual(["content", "type"]);
  expect(run.messages[0]!.type).toBe("context");
  expect((run.messages[0]!.content as unknown[]).length).toBeGreaterThan(0);
  expect(run.messages.slice(1).length).toBeGreaterThan(0);
  expect(run.messages.slice(1).every((m) => m.type === "response" && typeof m.content === "string")).toBe(true);
});

clause("6.2", "the run's end is the close (normal, 1000): there is no separate done message (the service's choice)", async () => {
  const run = await s.socket({ prompt: "When was the Eiffel Tower completed?" });
  expect(run.closeCode).toBe(1000);
  expect(run.messages.every((m) => m.type === "context" || m.type === "response")).toBe(true);
});

clause("6.2", "error messages carry error text", async () => {
  const run = await s.socket({ prompt: "" });
  expectOneErrorThenClose(run, "body.prompt");
});

clause("6.3", "after an error message the server closes the socket itself: nothing follows the error", async () => {
  const run = await socketSending([JSON.stringify({ prompt: "x", output_format: { a: "text" } })]);
  expectOneErrorThenClose(run);
});

clause("6.3", "a second message after the first prompt gets an error message, then the close", async () => {
  const run = await socketSending([
    JSON.stringify({ prompt: "When was the Eiffel Tower completed?" }),
    JSON.stringify({ prompt: "And the river bridge?" }),
  ]);
  expect(run.messages.length).toBeGreaterThan(0);
  const last = run.messages.at(-1)!;
  expect(last.type).toBe("error");
  expect(typeof last.content).toBe("string");
  expect(run.messages.filter((m) => m.type === "error").length).toBe(1);
  expect(run.closeCode).toBe(1000);
});

clause("6 · ¶2", "nothing is pushed before the client's message (the service's choice)", async () => {
  const run = await socketSending([], { waitMs: 300 });
  expect(run.messages).toEqual([]);
});

clause("6 · ¶2", "no other server-initiated channel: server-sent events are the same search messages, answered to a request", async () => {
  const streamed = await s.events({ prompt: "When was the Eiffel Tower completed?" });
  expect(streamed.status).toBe(200);
  expect(new Set(streamed.events.map((e) => e.event))).toEqual(new Set(["context", "response"]));
  const unsolicited = await s.app.fetch("/v1/search", { headers: { "X-API-Key": s.apiKey, accept: "text/event-stream" } });
  expect(unsolicited.status).toBe(404);
});
