/**
 * A loopback server speaking Anthropic's Messages API: POST /v1/messages
 * with `x-api-key` and `anthropic-version`, plain or streamed (the named SSE
 * events message_start ... message_stop), structured output both ways the
 * AI SDK asks for it (`output_config.format` json_schema for models that
 * support it, else a forced `json` tool answered with a tool_use block), and
 * Anthropic's error bodies. Requests are shown to the scripts of the
 * OpenAI-compatible peer in that peer's shape, so one script serves both.
 */
import {
  kindOf,
  quoteFirstSource,
  textOf,
  type ChatRequest,
  type ChatScript,
  failureHeaders,
  type PeerFailure,
  type StreamBreak,
} from "./openai-compatible.ts";

interface AnthropicPart {
  type: string;
  text?: string;
  source?: { type: string; media_type?: string; data?: string };
}

export interface MessagesRequest {
  model: string;
  max_tokens: number;
  system?: string | { type: "text"; text: string }[];
  messages: { role: string; content: string | AnthropicPart[] }[];
  stream?: boolean;
  tools?: { name: string; description?: string; input_schema: Record<string, unknown> }[];
  tool_choice?: { type: string; name?: string };
  output_config?: { format?: { type: string; schema: Record<string, unknown> } };
}

export interface AnthropicPeer {
  url: string;
  apiKey: string;
  /** Every request as sent, and the same in the OpenAI-compatible shape the scripts read. */
  requests: MessagesRequest[];
  seen: ChatRequest[];
  script: ChatScript;
  chunkDelayMs: number;
  /**
   * Next N requests fail with this status (529 is Anthropic's "overloaded"),
   * with Anthropic's error type for the status and `message` (default
   * "Overloaded"); `garbage` answers a 200 with that body instead.
   */
  failNext: PeerFailure | null;
  /** Next N streamed answers break after their first text delta with an `error` event of this type and message. */
  breakStream: StreamBreak | null;
  stop(): void;
}

/** How the structured output was asked for, if it was. */
export function structuredMode(request: MessagesRequest): "output_format" | "json_tool" | null {
  if (request.output_config?.format?.type === "json_schema") return "output_format";
  return forcedTool(request) ? "json_tool" : null;
}

/** The tool the model must call: named by tool_choice "tool", or the only one offered under "any". */
function forcedTool(request: MessagesRequest): NonNullable<MessagesRequest["tools"]>[number] | undefined {
  const choice = request.tool_choice;
  if (choice?.type === "tool") return request.tools?.find((t) => t.name === choice.name);
  if (choice?.type === "any" && request.tools?.length === 1) return request.tools[0];
  return undefined;
}

function asChatRequest(request: MessagesRequest): ChatRequest {
  const system = typeof request.system === "string" ? request.system : (request.system ?? []).map((p) => p.text).join("\n");
  const messages: ChatRequest["messages"] = system ? [{ role: "system", content: system }] : [];
  for (const message of request.messages) {
    if (typeof message.content === "string") {
      messages.push({ role: message.role, content: message.content });
      continue;
    }
    messages.push({
      role: message.role,
      content: message.content.map((part) => {
        if (part.type === "image")
          return { type: "image_url", image_url: { url: `data:${part.source?.media_type};base64,${part.source?.data}` } };
        return { type: part.type, text: part.text ?? "" };
      }),
    });
  }
  const mode = structuredMode(request);
  const schema = mode === "output_format" ? request.output_config!.format!.schema : forcedTool(request)?.input_schema;
  return {
    model: request.model,
    messages,
    stream: request.stream,
    ...(schema ? { response_format: { type: "json_schema", json_schema: { schema } } } : {}),
  };
}

function approxTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function errorBody(type: string, message: string) {
  return { type: "error", error: { type, message } };
}

/** Anthropic's error type for an HTTP status. */
function errorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 429) return "rate_limit_error";
  if (status === 529) return "overloaded_error";
  return status >= 500 ? "api_error" : "invalid_request_error";
}

export function startAnthropicPeer(options: { apiKey?: string; script?: ChatScript } = {}): AnthropicPeer {
  const peer: AnthropicPeer = {
    url: "",
    apiKey: options.apiKey ?? "test-anthropic-key",
    requests: [],
    seen: [],
    script: options.script ?? quoteFirstSource,
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
      if (new URL(request.url).pathname !== "/v1/messages" || request.method !== "POST")
        return Response.json(errorBody("not_found_error", "Not found"), { status: 404 });
      if (request.headers.get("x-api-key") !== peer.apiKey)
        return Response.json(errorBody("authentication_error", "invalid x-api-key"), { status: 401 });
      if (!request.headers.get("anthropic-version"))
        return Response.json(errorBody("invalid_request_error", "anthropic-version: header is required"), { status: 400 });
      const body = (await request.json()) as MessagesRequest;
      if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1)
        return Response.json(errorBody("invalid_request_error", "max_tokens: Field required"), { status: 400 });
      peer.requests.push(body);
      const seen = asChatRequest(body);
      peer.seen.push(seen);
      if (peer.failNext && peer.failNext.count > 0) {
        peer.failNext.count--;
        const { status, message, garbage } = peer.failNext;
        if (garbage !== undefined)
          return new Response(garbage, { headers: failureHeaders(peer.failNext, body.stream ? "text/event-stream" : "application/json") });
        return Response.json(errorBody(errorType(status), message ?? "Overloaded"), {
          status,
          headers: failureHeaders(peer.failNext, "application/json"),
        });
      }
      const broken = body.stream && peer.breakStream && peer.breakStream.count > 0 ? peer.breakStream : null;
      if (broken) broken.count--;
      const answer = await peer.script(seen, kindOf(seen));
      const text = typeof answer === "string" ? answer : JSON.stringify(answer);
      const mode = structuredMode(body);
      const block =
        mode === "json_tool"
          ? {
              type: "tool_use",
              id: `toolu_${crypto.randomUUID().replaceAll("-", "")}`,
              name: forcedTool(body)!.name,
              input: typeof answer === "string" ? {} : answer,
            }
          : { type: "text", text };
      const usage = { input_tokens: approxTokens(seen.messages.map(textOf).join("\n")), output_tokens: approxTokens(text) };
      const message = { id: `msg_${crypto.randomUUID().replaceAll("-", "")}`, type: "message", role: "assistant", model: body.model };
      const stopReason = block.type === "tool_use" ? "tool_use" : "end_turn";
      if (!body.stream) return Response.json({ ...message, content: [block], stop_reason: stopReason, stop_sequence: null, usage });

      const encoder = new TextEncoder();
      const event = (name: string, data: unknown) =>
        encoder.encode(`event: ${name}\ndata: ${JSON.stringify({ type: name, ...(data as object) })}\n\n`);
      const stream = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(
            event("message_start", {
              message: {
                ...message,
                content: [],
                stop_reason: null,
                stop_sequence: null,
                usage: { input_tokens: usage.input_tokens, output_tokens: 1 },
              },
            }),
          );
          controller.enqueue(event("ping", {}));
          if (block.type === "tool_use") {
            controller.enqueue(event("content_block_start", { index: 0, content_block: { ...block, input: {} } }));
            controller.enqueue(
              event("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } }),
            );
          } else {
            controller.enqueue(event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }));
            for (const piece of text.match(/\S+\s*|\s+/g) ?? [text]) {
              if (peer.chunkDelayMs) await Bun.sleep(peer.chunkDelayMs);
              controller.enqueue(event("content_block_delta", { index: 0, delta: { type: "text_delta", text: piece } }));
              if (broken) {
                // Anthropic reports a failure mid-stream (overloaded, rate limited) as an `error` event.
                controller.enqueue(event("error", { error: { type: broken.type, message: broken.message } }));
                controller.close();
                return;
              }
            }
          }
          controller.enqueue(event("content_block_stop", { index: 0 }));
          controller.enqueue(
            event("message_delta", {
              delta: { stop_reason: stopReason, stop_sequence: null },
              usage: { output_tokens: usage.output_tokens },
            }),
          );
          controller.enqueue(event("message_stop", {}));
          controller.close();
        },
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
    },
  });
  peer.url = `http://127.0.0.1:${server.port}/v1`;
  return peer;
}
