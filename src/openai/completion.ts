/**
 * A research answer as OpenAI's chat completion. The message's content is
 * the answer (with output_format, the object as JSON text). Its sources go
 * out both ways clients read them: Perplexity's `citations` (the URLs, so
 * `[n]` is citations[n-1]) and `search_results`, and OpenAI's web-search
 * `annotations`, one `url_citation` per `[n]` marker with the marker's
 * place in the content (start and end in UTF-16 code units, as JavaScript
 * counts). Usage is the run's tokens.
 */
import type { SearchAnswer } from "../research/run/drain.ts";
import type { ContextEntry, TokenReport } from "../research/types.ts";

/** What both faces answer from: a search's answer, or an endpoint's (whose info has other members beside its tokens). */
export type FaceAnswer = Pick<SearchAnswer, "response" | "context"> & { info: TokenReport };

export interface UrlCitation {
  type: "url_citation";
  url_citation: { url: string; title: string; start_index: number; end_index: number };
}

export interface Sources {
  citations: string[];
  search_results: { title: string; url: string }[];
}

export function sourcesOf(context: readonly ContextEntry[]): Sources {
  const ordered = [...context].sort((a, b) => a.id - b.id);
  return {
    citations: ordered.map((entry) => entry.metadata.url),
    search_results: ordered.map((entry) => ({ title: entry.metadata.title, url: entry.metadata.url })),
  };
}

export function annotationsOf(content: string, context: readonly ContextEntry[]): UrlCitation[] {
  const byId = new Map(context.map((entry) => [entry.id, entry]));
  const annotations: UrlCitation[] = [];
  for (const marker of content.matchAll(/\[(\d{1,4})\]/g)) {
    const entry = byId.get(Number(marker[1]));
    if (!entry) continue;
    annotations.push({
      type: "url_citation",
      url_citation: {
        url: entry.metadata.url,
        title: entry.metadata.title,
        start_index: marker.index,
        end_index: marker.index + marker[0].length,
      },
    });
  }
  return annotations;
}

export function contentOf(response: FaceAnswer["response"]): string {
  return typeof response === "string" ? response : JSON.stringify(response);
}

export function usageOf(info: TokenReport) {
  return { prompt_tokens: info.tokens.prompt, completion_tokens: info.tokens.completion, total_tokens: info.tokens.total };
}

export interface CompletionIdentity {
  id: string;
  created: number;
  model: string;
}

export function chatCompletion(identity: CompletionIdentity, answer: FaceAnswer) {
  const content = contentOf(answer.response);
  return {
    id: identity.id,
    object: "chat.completion" as const,
    created: identity.created,
    model: identity.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant" as const,
          content,
          refusal: null,
          annotations: typeof answer.response === "string" ? annotationsOf(content, answer.context) : [],
        },
        logprobs: null,
        finish_reason: "stop" as const,
      },
    ],
    usage: usageOf(answer.info),
    ...sourcesOf(answer.context),
  };
}
