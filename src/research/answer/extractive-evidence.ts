/**
 * The sentences of every passage, indexed once per answer, and the loose
 * term matching both extractive answerers score them with. Matching is
 * looser than the ranker's exact terms because a question and its answer
 * rarely inflect a word the same way ("completed" / "completion",
 * "founder" / "founded"), and Chinese or Japanese text has no spaces, so it
 * is matched by character pairs.
 */
import { contentTerms, isStopword, words } from "../../terms.ts";
import { bm25Scores } from "../rank.ts";
import type { EvidenceSource } from "../types.ts";
import { splitSentences } from "./sentences.ts";

export interface EvidenceSentence {
  sourceId: number;
  /** Index of the passage in its source, and of the sentence in the passage: reading order. */
  passage: number;
  position: number;
  text: string;
  /** Lowercase terms of the sentence (CJK as character pairs). */
  terms: string[];
  /** The passage's own rank from 0 to 1. */
  passageScore: number;
}

// Question words that survive the shared stopword list but say nothing about the topic.
const QUESTION_FILLER = new Set(
  (
    "many much often each every per tell please about give list show explain describe know find " +
    "wie viele viel welche welcher welches welchen wann wer wen wem wo woher warum wurde wurden " +
    "quand combien quel quelle quels quelles où pourquoi comment " +
    "cuándo cuándo cuántos cuántas cuánto quién quiénes dónde qué cómo fue"
  ).split(" "),
);

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

/** Terms of text as the index sees them: words, with CJK runs as overlapping character pairs. */
export function termsOf(text: string): string[] {
  const out: string[] = [];
  for (const word of words(text)) {
    if (word.length > 2 && CJK.test(word)) for (let i = 0; i + 1 < word.length; i++) out.push(word.slice(i, i + 2));
    else out.push(word);
  }
  return out;
}

/** The meaningful terms of a question, without stopwords and question words. */
export function queryTerms(text: string, max = 48): string[] {
  const out: string[] = [];
  for (const term of termsOf(contentTerms(text, max).join(" "))) {
    if (!QUESTION_FILLER.has(term) && !isStopword(term) && !out.some((t) => sameTerm(t, term))) out.push(term);
  }
  return out;
}

/**
 * Whether two lowercase terms are the same word up to inflection: equal,
 * a plural, or sharing a prefix of at least three quarters of the shorter
 * one (and four letters). Numbers must be equal.
 */
export function sameTerm(a: string, b: string): boolean {
  if (a === b) return true;
  if (a + "s" === b || b + "s" === a || a + "es" === b || b + "es" === a) return true;
  const min = Math.min(a.length, b.length);
  if (min < 4 || /\d/.test(a) || /\d/.test(b)) return false;
  let shared = 0;
  while (shared < min && a[shared] === b[shared]) shared++;
  return shared >= Math.max(4, Math.ceil(min * 0.75));
}

export class SentenceIndex {
  readonly sentences: EvidenceSentence[] = [];
  /** Terms of each passage with its heading and source title, keyed "source:passage". */
  private readonly passageTerms = new Map<string, Set<string>>();
  private readonly vocabulary = new Set<string>();
  private readonly titles = new Map<number, string>();
  private readonly headings = new Map<string, string>();

  constructor(sources: EvidenceSource[]) {
    for (const source of sources) {
      source.passages.forEach((passage, p) => {
        const context = new Set(termsOf(`${source.title} ${passage.heading ?? ""} ${passage.text}`));
        this.passageTerms.set(`${source.id}:${p}`, context);
        if (passage.heading) this.headings.set(`${source.id}:${p}`, passage.heading);
        splitSentences(passage.text).forEach((text, position) => {
          const terms = termsOf(text);
          for (const t of terms) this.vocabulary.add(t);
          this.sentences.push({ sourceId: source.id, passage: p, position, text, terms, passageScore: passage.score });
        });
      });
      for (const t of termsOf(source.title)) this.vocabulary.add(t);
      this.titles.set(source.id, source.title);
    }
  }

  /** For each word of the index, the query term it stands for, if any. */
  private lexicon(query: string[]): Map<string, string> {
    const map = new Map<string, string>();
    for (const word of this.vocabulary) {
      const term = query.find((q) => sameTerm(q, word));
      if (term) map.set(word, term);
    }
    return map;
  }

  /** BM25 of every sentence against the query terms, matched loosely. */
  bm25(query: string[]): number[] {
    if (query.length === 0) return this.sentences.map(() => 0);
    const lexicon = this.lexicon(query);
    return bm25Scores(query, this.sentences.map((s) => s.terms.map((t) => lexicon.get(t) ?? t)));
  }

  /** Which of the query terms a sentence contains. */
  matched(query: string[], sentence: EvidenceSentence): string[] {
    return query.filter((q) => sentence.terms.some((t) => sameTerm(q, t)));
  }

  /** Share of the query terms found in the sentence's passage, heading or source title. */
  passageCoverage(query: string[], sentence: EvidenceSentence): number {
    if (query.length === 0) return 0;
    const context = this.passageTerms.get(`${sentence.sourceId}:${sentence.passage}`) ?? new Set<string>();
    let found = 0;
    for (const q of query) {
      if (context.has(q)) found++;
      else for (const t of context) if (sameTerm(q, t)) { found++; break; }
    }
    return found / query.length;
  }

  title(sourceId: number): string {
    return this.titles.get(sourceId) ?? "";
  }

  heading(sentence: EvidenceSentence): string {
    return this.headings.get(`${sentence.sourceId}:${sentence.passage}`) ?? "";
  }

  /** Whether any word of the sources matches the term. */
  mentions(term: string): boolean {
    if (this.vocabulary.has(term)) return true;
    for (const word of this.vocabulary) if (sameTerm(term, word)) return true;
    return false;
  }
}
