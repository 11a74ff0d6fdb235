/**
 * The language model, as the engine needs it: planning, describing an image,
 * a streamed grounded answer, and a structured answer. One implementation
 * (ai-sdk.ts) covers OpenAI-compatible servers and Anthropic; without a
 * model configured the engine plans and answers extractively.
 */
import type { ImageMediaType } from "../image.ts";
import type { JsonSchema } from "../output-format.ts";
import type { EvidenceSource, TokenUsage } from "../types.ts";

export interface ImageBytes {
  data: Uint8Array;
  mediaType: ImageMediaType;
}

export interface StreamedAnswer {
  deltas: AsyncIterable<string>;
  /** Resolves once the stream has ended. */
  usage: Promise<TokenUsage>;
}

/**
 * The model, as the engine calls it. `traceparent`, where given, is the W3C
 * trace context of the run's stage that makes the call, sent as a header to
 * the model's API (a gateway that traces joins the run's trace).
 */
export interface LlmPort {
  readonly model: string;
  /** Whether images can be given to the model. */
  readonly vision: boolean;
  planQueries(prompt: string, signal: AbortSignal, traceparent?: string): Promise<{ queries: string[]; usage: TokenUsage }>;
  describeImage(
    prompt: string,
    image: ImageBytes,
    signal: AbortSignal,
    traceparent?: string,
  ): Promise<{ description: string; usage: TokenUsage }>;
  streamAnswer(
    input: { prompt: string; sources: EvidenceSource[]; image?: ImageBytes },
    signal: AbortSignal,
    traceparent?: string,
  ): StreamedAnswer;
  structuredAnswer(
    input: { prompt: string; schema: JsonSchema; sources: EvidenceSource[]; repairHint?: string },
    signal: AbortSignal,
    traceparent?: string,
  ): Promise<{ value: unknown; usage: TokenUsage }>;
  /** Any structured call: a system prompt, a user prompt, and the JSON Schema the answer fills. */
  structured(
    input: { system: string; prompt: string; schema: JsonSchema },
    signal: AbortSignal,
    traceparent?: string,
  ): Promise<{ value: unknown; usage: TokenUsage }>;
}

export const NO_USAGE: TokenUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
  };
}
