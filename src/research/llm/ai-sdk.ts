/**
 * LlmPort on the Vercel AI SDK: `createOpenAICompatible` (OpenAI, vLLM,
 * llama.cpp, Ollama, OpenRouter...) or `createAnthropic`. Retries are left
 * to the engine's deadline (maxRetries 1), and every call takes the run's
 * AbortSignal.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, jsonSchema, Output, streamText, type LanguageModel, type ModelMessage } from "ai";
import type { JsonSchema } from "../output-format.ts";
import type { EvidenceSource, TokenUsage } from "../types.ts";
import { NO_USAGE, type ImageBytes, type LlmPort, type StreamedAnswer } from "./port.ts";
import { ANSWER_SYSTEM, DESCRIBE_IMAGE_SYSTEM, PLAN_SYSTEM, sourcesBlock, STRUCTURED_SYSTEM } from "./prompts.ts";

export interface LlmSettings {
  provider: "openai" | "anthropic";
  model: string;
  baseUrl: string | undefined;
  apiKey: string | undefined;
  vision: boolean;
}

function languageModel(settings: LlmSettings): LanguageModel {
  if (settings.provider === "anthropic") {
    return createAnthropic({ apiKey: settings.apiKey, ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}) })(settings.model);
  }
  return createOpenAICompatible({
    name: "openai-compatible",
    baseURL: settings.baseUrl ?? "https://api.openai.com/v1",
    apiKey: settings.apiKey,
    includeUsage: true,
    supportsStructuredOutputs: true,
  })(settings.model);
}

function usageOf(usage: { inputTokens?: number | undefined; outputTokens?: number | undefined } | undefined): TokenUsage {
  const prompt = usage?.inputTokens ?? 0;
  const completion = usage?.outputTokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function userMessage(text: string, image?: ImageBytes): ModelMessage {
  if (!image) return { role: "user", content: text };
  return {
    role: "user",
    content: [
      { type: "text", text },
      { type: "image", image: image.data, mediaType: image.mediaType },
    ],
  };
}

const QUERIES_SCHEMA = jsonSchema<{ queries: string[] }>({
  type: "object",
  properties: { queries: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 4 } },
  required: ["queries"],
  additionalProperties: false,
});

/** The run's trace context for the model's API (a provider the operator chose, as search providers are); none when untraced. */
function traced(traceparent: string | undefined): Record<string, string> | undefined {
  return traceparent ? { traceparent } : undefined;
}

export class AiSdkLlm implements LlmPort {
  private readonly languageModel: LanguageModel;
  readonly model: string;
  readonly vision: boolean;

  constructor(settings: LlmSettings) {
    this.languageModel = languageModel(settings);
    this.model = settings.model;
    this.vision = settings.vision;
  }

  async planQueries(prompt: string, signal: AbortSignal, traceparent?: string) {
    const result = await generateText({
      model: this.languageModel,
      system: PLAN_SYSTEM,
      prompt,
      output: Output.object({ schema: QUERIES_SCHEMA }),
      abortSignal: signal,
      maxRetries: 1,
      headers: traced(traceparent),
    });
    const queries = result.output.queries
      .map((q) => q.trim())
      .filter(Boolean)
      .slice(0, 4);
    return { queries, usage: usageOf(result.usage) };
  }

  async describeImage(prompt: string, image: ImageBytes, signal: AbortSignal, traceparent?: string) {
    const result = await generateText({
      model: this.languageModel,
      system: DESCRIBE_IMAGE_SYSTEM,
      messages: [userMessage(prompt, image)],
      abortSignal: signal,
      maxRetries: 1,
      headers: traced(traceparent),
    });
    return { description: result.text.trim(), usage: usageOf(result.usage) };
  }

  streamAnswer(
    input: { prompt: string; sources: EvidenceSource[]; image?: ImageBytes },
    signal: AbortSignal,
    traceparent?: string,
  ): StreamedAnswer {
    let failure: unknown;
    const result = streamText({
      model: this.languageModel,
      system: ANSWER_SYSTEM,
      messages: [userMessage(`Sources:\n\n${sourcesBlock(input.sources)}\n\nRequest: ${input.prompt}`, input.image)],
      abortSignal: signal,
      maxRetries: 1,
      headers: traced(traceparent),
      onError: ({ error }) => {
        failure = error;
      },
    });
    const deltas = (async function* () {
      for await (const delta of result.textStream) yield delta;
      if (failure) throw failure;
    })();
    return { deltas, usage: Promise.resolve(result.usage).then(usageOf, () => NO_USAGE) };
  }

  async structuredAnswer(
    input: { prompt: string; schema: JsonSchema; sources: EvidenceSource[]; repairHint?: string },
    signal: AbortSignal,
    traceparent?: string,
  ) {
    const request = `Sources:\n\n${sourcesBlock(input.sources)}\n\nRequest: ${input.prompt}${input.repairHint ? `\n\nYour previous answer was invalid: ${input.repairHint}. Answer again, following the schema exactly.` : ""}`;
    return this.structured({ system: STRUCTURED_SYSTEM, prompt: request, schema: input.schema }, signal, traceparent);
  }

  async structured(input: { system: string; prompt: string; schema: JsonSchema }, signal: AbortSignal, traceparent?: string) {
    const result = await generateText({
      model: this.languageModel,
      system: input.system,
      prompt: input.prompt,
      output: Output.object({ schema: jsonSchema<Record<string, unknown>>(input.schema as Parameters<typeof jsonSchema>[0]) }),
      abortSignal: signal,
      maxRetries: 1,
      headers: traced(traceparent),
    });
    return { value: result.output as unknown, usage: usageOf(result.usage) };
  }
}
