/**
 * Evidence: the passages of every read page (or the search snippet of a page
 * that was not read), ranked together against the question, then grouped by
 * source. Sources are numbered 1..n in the order of their best passage:
 * these ids are what the context lists and what `[n]` cites.
 */
import { countTokens } from "../tokens.ts";
import type { PassageCache } from "./passage-cache.ts";
import { rankPassages, type CandidatePassage, type RankOptions } from "./rank.ts";
import type { ReadOutcome } from "./read.ts";
import type { ContextEntry, EvidenceSource } from "./types.ts";

export interface Evidence {
  sources: EvidenceSource[];
  context: ContextEntry[];
  /** Tokens of every passage considered: the engine's own processing, billed when no LLM reports usage. */
  processedTokens: number;
}

export function gatherEvidence(question: string, outcomes: ReadOutcome[], options: RankOptions, passages: PassageCache): Evidence {
  const candidates: CandidatePassage[] = [];
  const meta = new Map<number, { title: string; url: string }>();
  outcomes.forEach((outcome, index) => {
    const provisionalId = index + 1;
    const url = outcome.page?.finalUrl ?? outcome.hit.url;
    meta.set(provisionalId, { title: outcome.page?.title ?? outcome.hit.title ?? url, url });
    if (outcome.page) {
      for (const passage of passages.passagesOf(outcome.page))
        candidates.push({ sourceId: provisionalId, text: passage.text, heading: passage.heading, tokens: passage.tokens });
    }
    if (outcome.hit.snippet && (!outcome.page || candidates.every((c) => c.sourceId !== provisionalId))) {
      candidates.push({ sourceId: provisionalId, text: outcome.hit.snippet });
    }
  });
  const processedTokens = candidates.reduce((sum, c) => sum + (c.tokens ?? countTokens(c.text)), 0);
  const ranked = rankPassages(question, candidates, options);
  const order: number[] = [];
  for (const passage of ranked) if (!order.includes(passage.sourceId)) order.push(passage.sourceId);
  const sources: EvidenceSource[] = order.map((provisionalId, i) => {
    const id = i + 1;
    const passages = ranked.filter((p) => p.sourceId === provisionalId).map((p) => ({ ...p, sourceId: id }));
    return { id, ...meta.get(provisionalId)!, passages };
  });
  const context = sources.map((s) => ({
    id: s.id,
    metadata: { title: s.title, url: s.url, content: s.passages.map((p) => p.text).join("\n\n") },
  }));
  return { sources, context, processedTokens };
}
