/**
 * A research answer as OpenAI's Responses API gives it: a `response` whose
 * `output` holds one assistant message with one `output_text` part, its
 * `url_citation` annotations at the `[n]` markers (flat, as the Responses
 * API has them), and `output_text` at the top level as the SDKs read it.
 * Streamed, the same as the Responses events: created, the message and its
 * part added, text deltas, the annotations added, the part and the message
 * done, completed. The input is read as chat messages (messages.ts).
 */
import { invalid } from "../errors.ts";
import { eventStreamResponse } from "../http/event-stream.ts";
import { drain, type RunEvents } from "../research/run/drain.ts";
import type { ContextEntry, TokenReport } from "../research/types.ts";
import { annotationsOf, contentOf, sourcesOf, type FaceAnswer } from "./completion.ts";
import type { ChatMessage } from "./model.ts";
import type { ResponseRequest } from "./responses-model.ts";

export interface ResponseIdentity {
  id: string;
  created: number;
  model: string;
  /** The request's `text` member, echoed as OpenAI does. */
  format: unknown;
}

/** The Responses input as chat messages: `instructions` first, as a system message. */
export function chatMessagesOf(body: ResponseRequest): ChatMessage[] {
  const messages: ChatMessage[] = body.instructions ? [{ role: "system", content: body.instructions }] : [];
  if (typeof body.input === "string") return [...messages, { role: "user", content: body.input }];
  for (const [i, item] of body.input.entries()) {
    if (typeof item.content === "string") {
      messages.push({ role: item.role, content: item.content });
      continue;
    }
    const parts = item.content.map((part, j) => {
      if (part.type !== "input_image") return { type: "text" as const, text: part.text };
      if (!part.image_url)
        throw invalid(["body", "input", i, "content", j, "image_url"], "an image is given by its image_url (https or data URL)");
      return { type: "image_url" as const, image_url: { url: part.image_url } };
    });
    messages.push({ role: item.role, content: parts });
  }
  return messages;
}

type FlatCitation = { type: "url_citation"; url: string; title: string; start_index: number; end_index: number };

function flatAnnotations(text: string, context: readonly ContextEntry[]): FlatCitation[] {
  return annotationsOf(text, context).map((a) => ({ type: "url_citation" as const, ...a.url_citation }));
}

function usageOf(info: TokenReport) {
  return {
    input_tokens: info.tokens.prompt,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: info.tokens.completion,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: info.tokens.total,
  };
}

function envelope(identity: ResponseIdentity, status: "in_progress" | "completed" | "failed") {
  return {
    id: identity.id,
    object: "response" as const,
    created_at: identity.created,
    status,
    model: identity.model,
    error: null as unknown,
    incomplete_details: null,
    instructions: null,
    metadata: {},
    parallel_tool_calls: false,
    temperature: null,
    top_p: null,
    tool_choice: "none",
    tools: [],
    text: identity.format ?? { format: { type: "text" } },
  };
}

function message(identity: ResponseIdentity, text: string, annotations: FlatCitation[], status: "in_progress" | "completed") {
  return {
    type: "message" as const,
    id: `msg_${identity.id.slice("resp_".length)}`,
    status,
    role: "assistant" as const,
    content: status === "completed" || text ? [{ type: "output_text" as const, text, annotations, logprobs: [] }] : [],
  };
}

export function responseObject(identity: ResponseIdentity, answer: FaceAnswer) {
  const text = contentOf(answer.response);
  const annotations = typeof answer.response === "string" ? flatAnnotations(text, answer.context) : [];
  return {
    ...envelope(identity, "completed"),
    output: [message(identity, text, annotations, "completed")],
    output_text: text,
    usage: usageOf(answer.info),
    ...sourcesOf(answer.context),
  };
}

export interface ResponseStreamOptions {
  fail(error: unknown): { message: string; code: string | null };
  written(): Promise<void>;
}

export function responseStream(
  identity: ResponseIdentity,
  events: RunEvents,
  stop: AbortController,
  options: ResponseStreamOptions,
): Response {
  const itemId = `msg_${identity.id.slice("resp_".length)}`;
  return eventStreamResponse(stop, async (stream) => {
    let sequence = 0;
    const send = (type: string, fields: Record<string, unknown>) =>
      stream.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`);
    const at = { item_id: itemId, output_index: 0, content_index: 0 };
    let text = "";
    let context: ContextEntry[] = [];
    let structured = false;
    try {
      send("response.created", { response: { ...envelope(identity, "in_progress"), output: [], usage: null } });
      send("response.output_item.added", { output_index: 0, item: message(identity, "", [], "in_progress") });
      send("response.content_part.added", { ...at, part: { type: "output_text", text: "", annotations: [], logprobs: [] } });
      const info = await drain(events, (event) => {
        if (event.type === "context") {
          context = event.content;
          return;
        }
        structured ||= typeof event.content !== "string";
        const delta = contentOf(event.content);
        text += delta;
        send("response.output_text.delta", { ...at, delta, logprobs: [] });
      });
      const annotations = structured ? [] : flatAnnotations(text, context);
      for (const [index, annotation] of annotations.entries())
        send("response.output_text.annotation.added", { ...at, annotation_index: index, annotation });
      await options.written();
      const part = { type: "output_text", text, annotations, logprobs: [] };
      send("response.output_text.done", { ...at, text, logprobs: [] });
      send("response.content_part.done", { ...at, part });
      const item = message(identity, text, annotations, "completed");
      send("response.output_item.done", { output_index: 0, item });
      send("response.completed", {
        response: { ...envelope(identity, "completed"), output: [item], output_text: text, usage: usageOf(info), ...sourcesOf(context) },
      });
    } catch (error) {
      const failure = options.fail(error);
      if (stream.open())
        send("response.failed", { response: { ...envelope(identity, "failed"), error: failure, output: [], usage: null } });
    }
  });
}
