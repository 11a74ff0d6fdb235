/**
 * A loopback chat-completions server speaking the OpenAI wire format, as
 * vLLM, llama.cpp, Ollama and OpenRouter do: POST /v1/chat/completions,
 * `Authorization: Bearer`, plain or streamed (SSE chunks, `stream_options`
 * usage, `[DONE]`), and `response_format: json_schema` structured output.
 * Answers are scripted by a function of the request; the default one plans
 * queries from the user's words, answers by quoting source [1], and fills
 * structured outputs with nulls.
 */

export interface ChatRequest {
  model: string;
  messages: { role: string; content: string | { type: string; text?: string; image_url?: { url: string } }[] }[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  response_format?: { type: string; json_schema?: { name?: string; schema: Record<string, unknown>; strict?: boolean } };
}

export type ChatScript = (
  request: ChatRequest,
  kind: "plan" | "answer" | "structured" | "describe",
) => string | Record<string, unknown> | Promise<string | Record<string, unknown>>;

export interface ChatPeer {
  url: string;
  apiKey: string;
  requests: ChatRequest[];
  /** The `traceparent` each request came with (null without one), in the order of `requests`. */
  traceparents: (string | null)[];
  script: ChatScript;
  /** Delay before the first byte, and between streamed chunks. */
  latencyMs: number;
  chunkDelayMs: number;
  /**
   * Next N requests fail with this status, the error body carrying `message`
   * (default "upstream overloaded"); `garbage` answers a 200 with that body
   * instead of the wire format (both streamed and plain requests).
   */
  failNext: PeerFailure | null;
  /** Next N streamed answers break after their first delta with an error chunk of this type and message. */
  breakStream: StreamBreak | null;
  stop(): void;
}

export interface PeerFailure {
  status: number;
  count: number;
  message?: string;
  garbage?: string;
  /** Sent as `retry-after-ms`, which the AI SDK honours: its own retry then waits this long, not seconds. */
  retryAfterMs?: number;
}

export function failureHeaders(failure: PeerFailure, contentType: string): Record<string, string> {
  return { "content-type": contentType, ...(failure.retryAfterMs !== undefined ? { "retry-after-ms": String(failure.retryAfterMs) } : {}) };
}

export interface StreamBreak {
  count: number;
  type: string;
  message: string;
}

export function textOf(message: ChatRequest["messages"][number] | undefined): string {
  if (!message) return "";
  return typeof message.content === "string" ? message.content : message.content.map((p) => p.text ?? "").join("\n");
}

export function kindOf(request: ChatRequest): "plan" | "answer" | "structured" | "describe" {
  const system = textOf(request.messages.find((m) => m.role === "system"));
  if (system.includes("plan web searches")) return "plan";
  if (system.includes("Describe the image")) return "describe";
  if (request.response_format?.type === "json_schema") return "structured";
  return "answer";
}

/** The first sentence of source [1] in an answer request, cited: a grounded answer by construction. */
export const quoteFirstSource: ChatScript = (request, kind) => {
  const user = textOf(request.messages.at(-1));
  if (kind === "plan") return { queries: [user.replace(/\s+/g, " ").slice(0, 120)] };
  if (kind === "describe") return "A photo of a red river bridge at sunset.";
  if (kind === "structured") {
    const schema = request.response_format!.json_schema!.schema as { properties?: Record<string, unknown> };
    return Object.fromEntries(Object.keys(schema.properties ?? {}).map((k) => [k, null]));
  }
  const source = /\[1\][^\n]*\nURL: [^\n]*\n([^\n]+)/.exec(user);
  if (!source) return "The sources do not answer this.";
  const sentence = /^[^.!?]+[.!?]/.exec(source[1]!)?.[0] ?? source[1]!;
  return `${sentence} [1]`;
};

function approxTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

export function startChatPeer(options: { apiKey?: string; script?: ChatScript } = {}): ChatPeer {
  const peer: ChatPeer = {
    url: "",
    apiKey: options.apiKey ?? "test-llm-key",
    requests: [],
    traceparents: [],
    script: options.script ?? quoteFirstSource,
    latencyMs: 0,
    chunkDelayMs: 0,
    failNext: null,
    breakStream: null,
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 60,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (path !== "/v1/chat/completions" || request.method !== "POST")
        return Response.json({ error: { message: "not found", type: "invalid_request_error" } }, { status: 404 });
      if (request.headers.get("authorization") !== `Bearer ${peer.apiKey}`) {
        return Response.json(
          { error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } },
          { status: 401 },
        );
      }
      const body = (await request.json()) as ChatRequest;
      peer.requests.push(body);
      peer.traceparents.push(request.headers.get("traceparent"));
      if (peer.failNext && peer.failNext.count > 0) {
        peer.failNext.count--;
        const { status, message, garbage } = peer.failNext;
        if (garbage !== undefined)
          return new Response(garbage, { headers: failureHeaders(peer.failNext, body.stream ? "text/event-stream" : "application/json") });
        const error = {
          message: message ?? "upstream overloaded",
          type: status === 401 ? "invalid_request_error" : "server_error",
          ...(status === 401 ? { code: "invalid_api_key" } : {}),
        };
        return Response.json({ error }, { status, headers: failureHeaders(peer.failNext, "application/json") });
      }
      const broken = body.stream && peer.breakStream && peer.breakStream.count > 0 ? peer.breakStream : null;
      if (broken) broken.count--;
      if (peer.latencyMs) await Bun.sleep(peer.latencyMs);
      const kind = kindOf(body);
      const answer = await peer.script(body, kind);
      const content = typeof answer === "string" ? answer : JSON.stringify(answer);
      const promptText = body.messages.map(textOf).join("\n");
      const usage = {
        prompt_tokens: approxTokens(promptText),
        completion_tokens: approxTokens(content),
        total_tokens: approxTokens(promptText) + approxTokens(content),
      };
      const base = { id: `chatcmpl-${crypto.randomUUID()}`, created: Math.floor(Date.now() / 1000), model: body.model };
      if (!body.stream) {
        return Response.json({
          ...base,
          object: "chat.completion",
          choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
          usage,
        });
      }
      const pieces = content.match(/\S+\s*|\s+/g) ?? [content];
      const encoder = new TextEncoder();
      const chunk = (payload: unknown) => encoder.encode(`data: ${JSON.stringify(payload)}\n\n`);
      const stream = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(
            chunk({
              ...base,
              object: "chat.completion.chunk",
              choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
            }),
          );
          for (const piece of pieces) {
            if (peer.chunkDelayMs) await Bun.sleep(peer.chunkDelayMs);
            controller.enqueue(
              chunk({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] }),
            );
            if (broken) {
              // An OpenAI-compatible server reports a failure mid-stream as a chunk holding `error`.
              controller.enqueue(chunk({ error: { message: broken.message, type: broken.type } }));
              controller.close();
              return;
            }
          }
          controller.enqueue(
            chunk({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
          );
          if (body.stream_options?.include_usage)
            controller.enqueue(chunk({ ...base, object: "chat.completion.chunk", choices: [], usage }));
          controller.enqueue(encoder.encode("data: [DONE]\n\n"));
          controller.close();
        },
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
    },
  });
  peer.url = `http://127.0.0.1:${server.port}/v1`;
  return peer;
}
