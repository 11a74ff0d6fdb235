/**
 * The OpenAI-compatible set-ups of an endpoint's integration card: the
 * endpoint as a model (`endpoint:<stub>` or `published:<public_stub>`) of
 * POST /v1/chat/completions, through OpenAI's SDK and the Vercel AI SDK,
 * with the integration's example inputs as the message. The base URL is the
 * integration URL's origin; the key comes from the environment.
 */
const KEY_ENV = "CRITIQUE_API_KEY";

export interface OpenAiSnippets {
  openai: string;
  ai_sdk: string;
}

export function openAiSnippets(integrationUrl: string, model: string, exampleRequest: unknown): OpenAiSnippets {
  const base = `${new URL(integrationUrl).origin}/v1`;
  const content = JSON.stringify(JSON.stringify(exampleRequest ?? {}));
  return {
    openai: [
      'import OpenAI from "openai";',
      `const client = new OpenAI({ apiKey: process.env.${KEY_ENV}, baseURL: ${JSON.stringify(base)} });`,
      "const completion = await client.chat.completions.create({",
      `  model: ${JSON.stringify(model)},`,
      `  messages: [{ role: "user", content: ${content} }],`,
      "});",
      "console.log(completion.choices[0].message.content);",
    ].join("\n"),
    ai_sdk: [
      'import { createOpenAICompatible } from "@ai-sdk/openai-compatible";',
      'import { generateText } from "ai";',
      `const agentic = createOpenAICompatible({ name: "agentic-search", baseURL: ${JSON.stringify(base)}, apiKey: process.env.${KEY_ENV} });`,
      `const { text } = await generateText({ model: agentic(${JSON.stringify(model)}), prompt: ${content} });`,
      "console.log(text);",
    ].join("\n"),
  };
}
