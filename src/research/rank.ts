/**
 * Ranking: BM25 of every candidate passage against the prompt and the
 * planned queries, then maximal marginal relevance to pick passages that
 * are relevant and not repeats of one another (nor all from one source),
 * until a token budget is spent.
 */
import { contentTerms, words } from "../terms.ts";
import { countTokens } from "../tokens.ts";

export interface CandidatePassage {
  /** The context id of the source the passage comes from. */
  sourceId: number;
  text: string;
  heading?: string | null;
  /** The text's tokens, when already counted (a cached page's passages). */
  tokens?: number;
}

export interface RankedPassage extends CandidatePassage {
  score: number;
  tokens: number;
}

const K1 = 1.2;
const B = 0.75;

export function bm25Scores(queryTerms: string[], documents: string[][]): number[] {
  const n = documents.length;
  if (n === 0 || queryTerms.length === 0) return documents.map(() => 0);
  const avgdl = documents.reduce((s, d) => s + d.length, 0) / n || 1;
  const df = new Map<string, number>();
  for (const doc of documents) for (const term of new Set(doc)) df.set(term, (df.get(term) ?? 0) + 1);
  const idf = new Map(queryTerms.map((t) => [t, Math.log(1 + (n - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5))]));
  return documents.map((doc) => {
    const tf = new Map<string, number>();
    for (const term of doc) tf.set(term, (tf.get(term) ?? 0) + 1);
    let score = 0;
    for (const term of queryTerms) {
      const f = tf.get(term) ?? 0;
      if (f) score += idf.get(term)! * ((f * (K1 + 1)) / (f + K1 * (1 - B + (B * doc.length) / avgdl)));
    }
    return score;
  });
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const x of a) if (b.has(x)) shared++;
  return shared / (a.size + b.size - shared);
}

export interface RankOptions {
  /** Tokens the chosen passages may use together. */
  tokenBudget: number;
  maxPassages: number;
  /** 1: relevance only; lower values favour variety. */
  lambda?: number;
}

export function rankPassages(query: string, candidates: CandidatePassage[], options: RankOptions): RankedPassage[] {
  const terms = contentTerms(query, 48);
  const tokenized = candidates.map((c) => words(`${c.heading ?? ""} ${c.text}`));
  const scores = bm25Scores(terms, tokenized);
  const best = Math.max(...scores, 0) || 1;
  const termSets = tokenized.map((t) => new Set(t));
  const lambda = options.lambda ?? 0.7;
  const pool = candidates.map((_, i) => ({ i, relevance: scores[i]! / best })).filter((p) => p.relevance > 0);
  // Each candidate's greatest similarity to a chosen passage, kept up to date as passages are chosen:
  // one comparison per candidate per choice, instead of one per chosen passage per candidate per choice.
  const similarity = new Float64Array(candidates.length);
  const chosen: RankedPassage[] = [];
  const perSource = new Map<number, number>();
  let spent = 0;
  while (pool.length && chosen.length < options.maxPassages) {
    let pick = -1;
    let pickValue = -Infinity;
    for (let p = 0; p < pool.length; p++) {
      const { i, relevance } = pool[p]!;
      // A source that already gave passages is a little less welcome: variety of sources.
      const repeat = (perSource.get(candidates[i]!.sourceId) ?? 0) * 0.1;
      const value = lambda * relevance - (1 - lambda) * similarity[i]! - repeat;
      if (value > pickValue) {
        pickValue = value;
        pick = p;
      }
    }
    const [{ i, relevance }] = pool.splice(pick, 1) as [{ i: number; relevance: number }];
    const candidate = candidates[i]!;
    if (termSets[i]!.size > 0 && similarity[i]! > 0.8) continue; // a near-copy
    const tokens = candidate.tokens ?? countTokens(candidate.text);
    if (spent + tokens > options.tokenBudget) {
      if (chosen.length === 0) continue;
      break;
    }
    spent += tokens;
    chosen.push({ ...candidate, score: relevance, tokens });
    for (const { i: other } of pool) similarity[other] = Math.max(similarity[other]!, jaccard(termSets[other]!, termSets[i]!));
    perSource.set(candidate.sourceId, (perSource.get(candidate.sourceId) ?? 0) + 1);
  }
  return chosen;
}
