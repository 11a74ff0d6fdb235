/**
 * The research run's vocabulary, shared by the engine and its three faces
 * (JSON, WebSocket, SSE). The engine yields events; the wire shapes are
 * Critique's: `{type, content}`, context ids from 1.
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
  | { type: "response"; content: string | Record<string, unknown> }
  | { type: "error"; content: string };

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
