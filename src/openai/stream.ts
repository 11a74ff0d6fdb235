/**
 * A research run as OpenAI's streamed chat completion: server-sent
 * `chat.completion.chunk`s, each a bare `data:` line, ending with
 * `data: [DONE]`. The first chunk opens the assistant's message and carries
 * the run's sources (`citations`, `search_results`), since a run finds them
 * before it answers; the answer's deltas follow; the last chunk says
 * `finish_reason: "stop"`; with `stream_options.include_usage` a chunk with
 * no choices carries the usage. A run that fails after the stream began
 * sends one `data: {"error": {...}}` (OpenAI's SDKs raise it) and ends
 * without [DONE]. The stream closes only once the call's usage is written.
 */
import { eventStreamResponse } from "../http/event-stream.ts";
import { drain, type RunEvents } from "../research/run/drain.ts";
import type { ResearchEvent } from "../research/types.ts";
import { contentOf, sourcesOf, usageOf, type CompletionIdentity } from "./completion.ts";

export interface StreamOptions {
  includeUsage: boolean;
  /** Maps and logs a failure; gives the error object the last chunk carries. */
  fail(error: unknown): { message: string; type: string; code: string | null };
  /** Resolves once the call's usage is written. */
  written(): Promise<void>;
}

export function completionStream(identity: CompletionIdentity, events: RunEvents, stop: AbortController, options: StreamOptions): Response {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id: identity.id,
    object: "chat.completion.chunk",
    created: identity.created,
    model: identity.model,
    choices,
    ...extra,
  });
  return eventStreamResponse(stop, async (stream) => {
    const send = (value: unknown) => stream.write(`data: ${JSON.stringify(value)}\n\n`);
    let opened = false;
    const openMessage = (extra: Record<string, unknown> = {}) => {
      if (opened) return;
      opened = true;
      send(chunk([{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }], extra));
    };
    try {
      const info = await drain(events, (event: ResearchEvent) => {
        if (event.type === "context") return openMessage({ ...sourcesOf(event.content) });
        openMessage();
        send(chunk([{ index: 0, delta: { content: contentOf(event.content) }, logprobs: null, finish_reason: null }]));
      });
      openMessage();
      await options.written();
      send(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }]));
      if (options.includeUsage) send(chunk([], { usage: usageOf(info) }));
      if (stream.open()) stream.write("data: [DONE]\n\n");
    } catch (error) {
      const failure = options.fail(error);
      if (stream.open()) stream.write(`data: ${JSON.stringify({ error: { ...failure, param: null } })}\n\n`);
    }
  });
}
