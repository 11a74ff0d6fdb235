/**
 * The research run's vocabulary, shared by the engine and its three faces
 * (JSON, WebSocket, SSE). The engine yields events; the wire shapes are
 * Critique's: `{type, content}`, context ids from 1. A failed run throws:
 * the streams' closing `error` message is the faces' (run/outcome.ts).
 */
import type { RankedPassage } from "./rank.ts";

/** One source the answer may cite as [id]; `content` holds the passages the answer was given from it. */
export interface ContextEntry {
  id: number;
  metadata: { title: string; url: string; content: string };
}

export type ResearchEvent =
  | { type: "context"; content: ContextEntry[] }
  /** Text deltas of the answer, or (with output_format) the one whole object. */
  | { type: "response"; content: string | Record<string, unknown> };

/** A source with the ranked passages chosen from it: what answerers work from. */
export interface EvidenceSource {
  id: number;
  title: string;
  url: string;
  passages: RankedPassage[];
}

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** How a run's `info` reports tokens: `token_usage` is the total (SPEC 2.3: a number), `tokens` the breakdown. */
export interface TokenReport {
  token_usage: number;
  tokens: { prompt: number; completion: number; total: number };
}

export function tokenReport(usage: TokenUsage): TokenReport {
  return {
    token_usage: usage.total_tokens,
    tokens: { prompt: usage.prompt_tokens, completion: usage.completion_tokens, total: usage.total_tokens },
  };
}

export function usageOf(report: TokenReport): TokenUsage {
  return { prompt_tokens: report.tokens.prompt, completion_tokens: report.tokens.completion, total_tokens: report.tokens.total };
}
