/**
 * What the engine asks a language model. Kept apart from the calls so the
 * wording can be read and tuned in one place.
 */
import type { EvidenceSource } from "../types.ts";

export const PLAN_SYSTEM =
  "You plan web searches. Given a user's request, write 1 to 4 short search engine queries that together find sources to answer it: " +
  "the main query first, then ones for distinct sub-questions or synonyms. Use the request's language. No explanations.";

export const ANSWER_SYSTEM = [
  "You answer the user's request using only the numbered sources provided.",
  "Cite every factual sentence with the number of the source that supports it, like [1] or [2][3], placed right after the sentence.",
  "Cite only source numbers that exist below. Do not cite anything else and never invent sources or URLs.",
  "If the sources do not answer the request, say so plainly instead of guessing.",
  "Answer in the language of the request, concisely.",
].join(" ");

export const STRUCTURED_SYSTEM = [
  "You fill a JSON object from the numbered sources provided, following the JSON schema exactly.",
  "Use only facts stated in the sources. Use null for any field the sources do not support; never invent values.",
].join(" ");

export const DESCRIBE_IMAGE_SYSTEM =
  "Describe the image in two or three sentences, naming what matters for a web search about the user's request.";

export function sourcesBlock(sources: EvidenceSource[]): string {
  if (sources.length === 0) return "No sources were found.";
  return sources.map((s) => `[${s.id}] ${s.title}\nURL: ${s.url}\n${s.passages.map((p) => p.text).join("\n...\n")}`).join("\n\n");
}
