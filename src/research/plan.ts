/**
 * Plan: the prompt (and an image description) to 1–4 search queries. With a
 * language model it is one structured call; without one, or when the call
 * fails, query variants come from the prompt itself: the question as asked,
 * its key terms, and each sub-question's key terms.
 */
import { contentTerms } from "../terms.ts";
import type { LlmPort } from "./llm/port.ts";
import { NO_USAGE } from "./llm/port.ts";
import type { TokenUsage } from "./types.ts";

const MAX_QUERIES = 4;
const MAX_QUERY_CHARS = 300;

function dedupe(queries: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const q of queries) {
    const clean = q.replace(/\s+/g, " ").trim().slice(0, MAX_QUERY_CHARS);
    const key = clean.toLowerCase();
    if (clean && !seen.has(key)) {
      seen.add(key);
      out.push(clean);
    }
  }
  return out.slice(0, MAX_QUERIES);
}

export function keyphraseQueries(prompt: string): string[] {
  const queries = [prompt];
  const terms = contentTerms(prompt, 10);
  if (terms.length) queries.push(terms.join(" "));
  // Sub-questions ("X and Y?", "A; B", several sentences) each get their own terms.
  const parts = prompt
    .split(/[?;\n]|\.\s+|,\s+(?:and|und|et|y)\s+|\s+(?:and also|as well as)\s+/i)
    .map((p) => p.trim())
    .filter((p) => contentTerms(p).length >= 2);
  if (parts.length > 1) for (const part of parts) queries.push(contentTerms(part, 8).join(" "));
  return dedupe(queries);
}

export interface Plan {
  queries: string[];
  planner: "llm" | "keyphrases";
  usage: TokenUsage;
  /** The model's failure, when planning fell back to key phrases: the engine words it for the caller. */
  error?: unknown;
}

export async function planQueries(
  llm: LlmPort | null,
  prompt: string,
  imageDescription: string | null,
  signal: AbortSignal,
  traceparent?: string,
): Promise<Plan> {
  const request = imageDescription ? `${prompt}\n\nThe user attached an image: ${imageDescription}` : prompt;
  if (llm) {
    try {
      const { queries, usage } = await llm.planQueries(request, signal, traceparent);
      const planned = dedupe(queries);
      if (planned.length) return { queries: planned, planner: "llm", usage };
    } catch (error) {
      signal.throwIfAborted();
      return { queries: keyphraseQueries(request), planner: "keyphrases", usage: NO_USAGE, error };
    }
  }
  return { queries: keyphraseQueries(request), planner: "keyphrases", usage: NO_USAGE };
}
