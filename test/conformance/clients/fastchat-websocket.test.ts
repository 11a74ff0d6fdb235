/**
 * FastChat's Critique integration (lm-sys/FastChat pull request 3719,
 * fastchat/serve/api_provider.py: critique_api_stream_iter, api_type
 * "critique-labs-ai"), as the search arena runs it with `api_base` set to
 * this service's socket URL. It flattens the conversation into one prompt
 * ("Role: text" lines, system unprefixed, then a "DO NOT RESPONSE IN
 * MARKDOWN or provide any citations" line), opens the socket with the
 * python `websockets` client and the key in an X-API-Key header, sends
 * json.dumps({"prompt": prompt}), then for each message: `response`
 * content is appended to the text and the whole text yielded (error_code
 * 0), `context` content is collected, `error` is yielded as
 * "**API REQUEST ERROR** Reason: <content>" (error_code 1) and ends the
 * stream. The close, whatever its code, is the normal end. A connection
 * that fails (a refused upgrade) is one error yield.
 */
import { describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../../helpers/app.ts";
import { rawUpgrade } from "../../helpers/websocket.ts";
import { useSearchApp } from "../search-app.ts";
import { citationsOf, pythonJson } from "./wire.ts";

const s = useSearchApp();

const wsUrlOf = (target: TestApp) => `${target.url.replace("http", "ws")}/v1/ws/search`;

type ContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };
type OpenAIMessage = { role: "system" | "user" | "assistant"; content: string | ContentPart[] };
type Yield = { text: string; error_code: 0 | 1 };

/** What the test can see besides the yields: the raw frames, the collected context, the close code. */
interface Observed {
  prompt: string;
  frames: string[];
  context: unknown[];
  closeCode: number | null;
}

/** websockets' default max_size: a bigger message closes the connection (1009), which the client takes as the end. */
const WEBSOCKETS_MAX_SIZE = 2 ** 20;

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();

/** The prompt critique_api_stream_iter builds from conv.to_openai_api_messages(). */
function fastchatPrompt(messages: OpenAIMessage[]): string {
  let prompt = "";
  for (const message of messages) {
    const prefix = message.role !== "system" ? `${capitalize(message.role)}: ` : "";
    if (typeof message.content === "string") prompt += `${prefix}${message.content}\n`;
    else for (const part of message.content) if (part.type === "text") prompt += `${prefix}${part.text}\n`;
  }
  return `${prompt}\n DO NOT RESPONSE IN MARKDOWN or provide any citations`;
}

/** critique_api_stream_iter: the socket "thread" feeds a queue, the generator drains it until the close. */
async function* critiqueApiStreamIter(
  messages: OpenAIMessage[],
  options: { apiKey?: string; apiBase?: string },
  seen: Observed,
): AsyncGenerator<Yield> {
  const key = options.apiKey;
  if (!key) {
    yield { text: "**API REQUEST ERROR** Reason: CRITIQUE_API_KEY not found in environment variables.", error_code: 1 };
    return;
  }
  const prompt = fastchatPrompt(messages);
  seen.prompt = prompt;
  const uri = options.apiBase ?? "wss://api.critique-labs.ai/v1/ws/search";
  const queue: any[] = [];
  let connectionClosed = false;
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  const put = (item: unknown) => {
    queue.push(item);
    notify();
  };
  let opened = false;
  let stop = false;
  const socket = new WebSocket(uri, { headers: { "X-API-Key": key, "User-Agent": "Python/3.12 websockets/14.2" } } as unknown as string[]);
  socket.onopen = () => {
    opened = true;
    socket.send(pythonJson({ prompt }));
  };
  socket.onmessage = (event) => {
    if (stop) return;
    const raw = typeof event.data === "string" ? event.data : new TextDecoder().decode(event.data as ArrayBuffer);
    seen.frames.push(raw);
    if (Buffer.byteLength(raw) > WEBSOCKETS_MAX_SIZE) {
      // websockets fails the connection with 1009; recv() raises ConnectionClosed: "the expected end signal".
      stop = true;
      socket.close(1009);
      return;
    }
    try {
      const data = JSON.parse(raw);
      put(data);
      if (data.type === "error") {
        stop = true;
        socket.close();
      }
    } catch (error) {
      put({ type: "error", content: `WebSocket error: ${(error as Error).message}` });
      stop = true;
      socket.close();
    }
  };
  socket.onerror = () => {
    // websockets.connect raises (InvalidStatus for a refused upgrade); the thread reports it on the queue.
    if (!opened) put({ type: "error", content: "WebSocket error: server rejected WebSocket connection" });
  };
  socket.onclose = (event) => {
    seen.closeCode = event.code;
    connectionClosed = true;
    notify();
  };

  let text = "";
  try {
    while (!connectionClosed || queue.length > 0) {
      if (queue.length === 0) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 500);
        });
        continue;
      }
      const data = queue.shift();
      if (data.type === "response") {
        if (typeof data.content !== "string") throw new TypeError('can only concatenate str (not "dict") to str');
        text += data.content;
        yield { text, error_code: 0 };
      } else if (data.type === "context") {
        seen.context.push(data.content);
      } else if (data.type === "error") {
        yield { text: `**API REQUEST ERROR** Reason: ${data.content}`, error_code: 1 };
        break;
      }
    }
  } catch (error) {
    yield { text: `**API REQUEST ERROR** Reason: ${(error as Error).message}`, error_code: 1 };
  } finally {
    stop = true;
    if (socket.readyState === WebSocket.OPEN) socket.close();
  }
}

/** The arena's reading: every yield in order; the last one is what the user is shown. */
async function arena(messages: OpenAIMessage[], options: { apiKey?: string; apiBase?: string }) {
  const seen: Observed = { prompt: "", frames: [], context: [], closeCode: null };
  const yields: Yield[] = [];
  const run = (async () => {
    for await (const item of critiqueApiStreamIter(messages, options, seen)) yields.push(item);
  })();
  await Promise.race([
    run,
    Bun.sleep(20_000).then(() => Promise.reject(new Error(`the stream did not end: ${JSON.stringify(seen.frames)}`))),
  ]);
  // Let the socket's close land, as the thread's join does.
  for (let i = 0; i < 50 && seen.prompt !== "" && seen.closeCode === null; i++) await Bun.sleep(20);
  return { yields, shown: yields.at(-1), ...seen };
}

const conversation = (question: string): OpenAIMessage[] => [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: question },
];

describe("FastChat: critique_api_stream_iter over /v1/ws/search", () => {
  test("a conversation streams an answer: growing text, error_code 0, context collected, the close ends it", async () => {
    const run = await arena(conversation("When was the Eiffel Tower completed?"), { apiKey: s.apiKey, apiBase: s.wsUrl });
    expect(run.prompt).toBe(
      "You are a helpful assistant.\nUser: When was the Eiffel Tower completed?\n\n DO NOT RESPONSE IN MARKDOWN or provide any citations",
    );
    expect(run.yields.length).toBeGreaterThan(0);
    for (const y of run.yields) expect(y.error_code).toBe(0);
    for (let i = 1; i < run.yields.length; i++) expect(run.yields[i]!.text.startsWith(run.yields[i - 1]!.text)).toBe(true);
    expect(run.shown!.text.trim().length).toBeGreaterThan(0);
    expect(run.shown!.text).toContain("1889");
    expect(run.closeCode).toBe(1000);

    // The context messages it collects: the sources, each with an integer id and a URL.
    expect(run.context.length).toBeGreaterThan(0);
    const entries = run.context.flat() as any[];
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      expect(Number.isInteger(entry.id)).toBe(true);
      expect(typeof entry.metadata.url).toBe("string");
    }
    expect(entries.map((e) => e.metadata.url)).toContain(s.world.url("wiki.test", "/eiffel.html"));
    // Any [n] left in the text points at a collected source.
    for (const n of citationsOf(run.shown!.text)) expect(entries.some((e) => e.id === n)).toBe(true);
  });

  test("every frame is a JSON text message of {type, content} the client can read: response content a string, each under websockets' 1 MiB max_size", async () => {
    const run = await arena(conversation("How tall is the Eiffel Tower?"), { apiKey: s.apiKey, apiBase: s.wsUrl });
    expect(run.frames.length).toBeGreaterThan(1);
    for (const raw of run.frames) {
      expect(Buffer.byteLength(raw)).toBeLessThanOrEqual(WEBSOCKETS_MAX_SIZE);
      const data = JSON.parse(raw);
      expect(["response", "context", "error"]).toContain(data.type);
      if (data.type === "response") expect(typeof data.content).toBe("string");
    }
    expect(run.shown).toMatchObject({ error_code: 0 });
    expect(run.shown!.text).toContain("330");
  });

  // Not a target yet. Without a model, the arena's appended line ("DO NOT RESPONSE IN MARKDOWN or provide any
  // citations") goes into the ranking: the bridge question finds its three sources (context has them) and the
  // extractive answer is still "I could not find sources that answer this question." The same prompt without
  // the line is answered ("42 million euros"). The instruction itself is not followed either: [n] markers stay.
  test.todo("the arena's trailing instruction line does not derail the answer (river bridge question)", async () => {
    const run = await arena(conversation("What will the river bridge cost?"), { apiKey: s.apiKey, apiBase: s.wsUrl });
    expect(run.shown).toMatchObject({ error_code: 0 });
    expect(run.shown!.text).toContain("42 million");
  });

  test("a multimodal turn: only the text parts reach the prompt, and it is answered", async () => {
    const messages: OpenAIMessage[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "When was the Eiffel Tower completed?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
        ],
      },
    ];
    const run = await arena(messages, { apiKey: s.apiKey, apiBase: s.wsUrl });
    expect(run.prompt).not.toContain("base64");
    expect(run.shown).toMatchObject({ error_code: 0 });
    expect(run.shown!.text).toContain("1889");
  });

  test("a multi-turn conversation (assistant turns included) is one prompt and one answer", async () => {
    const messages: OpenAIMessage[] = [
      { role: "user", content: "Tell me about the Eiffel Tower." },
      { role: "assistant", content: "It is a wrought-iron tower in Paris." },
      { role: "user", content: "When was the Eiffel Tower completed?" },
    ];
    const run = await arena(messages, { apiKey: s.apiKey, apiBase: s.wsUrl });
    expect(run.prompt.split("\n").slice(0, 3)).toEqual([
      "User: Tell me about the Eiffel Tower.",
      "Assistant: It is a wrought-iron tower in Paris.",
      "User: When was the Eiffel Tower completed?",
    ]);
    expect(run.shown).toMatchObject({ error_code: 0 });
    expect(run.shown!.text).toContain("1889");
  });
});

describe("FastChat: failures become one error yield", () => {
  test("no key configured: the error without connecting", async () => {
    const run = await arena(conversation("x"), { apiBase: s.wsUrl });
    expect(run.yields).toEqual([
      { text: "**API REQUEST ERROR** Reason: CRITIQUE_API_KEY not found in environment variables.", error_code: 1 },
    ]);
    expect(run.frames).toEqual([]);
  });

  test("a wrong key: the upgrade is refused (401) and the arena shows one API REQUEST ERROR", async () => {
    expect((await rawUpgrade(s.wsUrl, { "X-API-Key": "sk_live_wrong" })).status).toBe(401);
    const run = await arena(conversation("When was the Eiffel Tower completed?"), { apiKey: "sk_live_wrong", apiBase: s.wsUrl });
    expect(run.yields.length).toBe(1);
    expect(run.yields[0]!.error_code).toBe(1);
    expect(run.yields[0]!.text).toStartWith("**API REQUEST ERROR** Reason: WebSocket error:");
    expect(run.frames).toEqual([]);
  });

  test("a Free key's 11th socket in a minute: the upgrade is refused (429), one error yield", async () => {
    const { apiKey: freeKey } = await s.app.account({ name: "free-arena" });
    for (let i = 0; i < 10; i++) expect((await rawUpgrade(s.wsUrl, { "X-API-Key": freeKey })).status).toBe(101);
    const refused = await rawUpgrade(s.wsUrl, { "X-API-Key": freeKey });
    expect(refused.status).toBe(429);
    const run = await arena(conversation("When was the Eiffel Tower completed?"), { apiKey: freeKey, apiBase: s.wsUrl });
    expect(run.yields.length).toBe(1);
    expect(run.yields[0]!.error_code).toBe(1);
  });

  test("an error message from the server (the deadline passed) is shown and ends the stream; the close follows", async () => {
    const slow = await startTestApp(s.database, {
      env: s.world.env({ SEARCH_DEADLINE_MS: "1000", PROVIDER_TIMEOUT_MS: "10000", SEARCH_HEDGING: "false" }),
      resolver: s.world.resolver,
    });
    s.world.searxng.setLatency(3_000);
    s.world.brave.setLatency(3_000);
    try {
      const key = (await slow.account({ limit: 100_000 })).apiKey;
      const run = await arena(conversation("river bridge"), { apiKey: key, apiBase: wsUrlOf(slow) });
      expect(run.shown!.error_code).toBe(1);
      expect(run.shown!.text).toStartWith("**API REQUEST ERROR** Reason: ");
      expect(run.shown!.text).toMatch(/did not finish within 1 seconds? \(deadline_exceeded\)$/);
      expect(run.yields.filter((y) => y.error_code === 1).length).toBe(1);
      const errors = run.frames.map((raw) => JSON.parse(raw)).filter((m) => m.type === "error");
      expect(errors.length).toBe(1);
      expect(typeof errors[0].content).toBe("string");
      expect(run.closeCode).toBe(1000);
    } finally {
      s.world.searxng.setLatency(0);
      s.world.brave.setLatency(0);
      await slow.stop();
    }
  });
});
