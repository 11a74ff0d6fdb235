/**
 * The sentences of every passage, indexed once per answer, and the loose
 * term matching both extractive answerers score them with. Matching is
 * looser than the ranker's exact terms because a question and its answer
 * rarely inflect a word the same way ("completed" / "completion",
 * "founder" / "founded"; irregular forms like "wrote" / "written" by
 * their lemmas, see lemmaVariants), and Chinese or Japanese text has no spaces, so it
 * is matched by character pairs.
 */
import { contentTerms, isStopword, words } from "../../terms.ts";
import type { EvidenceSource } from "../types.ts";
import { lemmaOf } from "./english.ts";
import { splitSentences } from "./sentences.ts";

export interface EvidenceSentence {
  sourceId: number;
  /** Index of the passage in its source, and of the sentence in the passage: reading order. */
  passage: number;
  position: number;
  text: string;
  /** Lowercase terms of the sentence (CJK as character pairs), in order, and how often each occurs. */
  terms: string[];
  termCounts: ReadonlyMap<string, number>;
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

// Han, kana and CJK compatibility blocks, as plain ranges: this runs on every word.
const CJK = /[\u2e80-\u2fdf\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;

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
 * one (and four letters), or a verb that drops its "e" before "-ing". Numbers must be equal. Called for every word
 * against every query term, so it rejects on the first letter before anything else.
 */
export function sameTerm(a: string, b: string): boolean {
  if (a === b) return true;
  if (a.charCodeAt(0) !== b.charCodeAt(0)) return false;
  const min = Math.min(a.length, b.length);
  let shared = 1;
  while (shared < min && a.charCodeAt(shared) === b.charCodeAt(shared)) shared++;
  if (shared === min) {
    const extra = Math.max(a.length, b.length) - min;
    const longer = a.length > b.length ? a : b;
    if ((extra === 1 && longer.endsWith("s")) || (extra === 2 && longer.endsWith("es"))) return true;
  }
  if (min >= 4 && shared >= Math.max(4, Math.ceil(min * 0.75)) && !/\d/.test(a) && !/\d/.test(b)) return true;
  // A verb that drops its "e" before "-ing": "hire" / "hiring", "use" / "using".
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  return (
    short.length >= 3 && short.endsWith("e") && long.length === short.length + 2 && long.endsWith("ing") && shared === short.length - 1
  );
}

/** The words in `text` that match any of the terms, as spans. */
export function termSpans(text: string, terms: string[]): { index: number; end: number }[] {
  const out: { index: number; end: number }[] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    const lower = m[0].toLowerCase();
    if (terms.some((t) => sameTerm(t, lower))) out.push({ index: m.index, end: m.index + m[0].length });
  }
  return out;
}

// BM25 parameters, as in rank.ts: the same scoring, over sentences instead of passages.
const K1 = 1.2;
const B = 0.75;

export class SentenceIndex {
  readonly sentences: EvidenceSentence[] = [];
  /** Terms of each passage with its heading and source title, keyed "source:passage". */
  private readonly passageTerms = new Map<string, Set<string>>();
  /** For each word, the sentences holding it and how often: BM25 touches only the words a query matches. */
  private readonly postings = new Map<string, { sentence: number; count: number }[]>();
  private readonly vocabulary = new Set<string>();
  private readonly matches = new Map<string, string[]>();
  private readonly titles = new Map<number, string>();
  private readonly headings = new Map<string, string>();
  private readonly averageLength: number;
  /** Each sentence's place in `sentences`: the sentence before it is one step back. */
  private readonly order = new Map<EvidenceSentence, number>();

  constructor(sources: EvidenceSource[]) {
    for (const source of sources) {
      const titleTerms = termsOf(source.title);
      source.passages.forEach((passage, p) => {
        const context = new Set([...titleTerms, ...termsOf(passage.heading ?? "")]);
        splitSentences(passage.text).forEach((text, position) => {
          const terms = termsOf(text);
          const termCounts = new Map<string, number>();
          for (const t of terms) {
            termCounts.set(t, (termCounts.get(t) ?? 0) + 1);
            context.add(t);
          }
          this.add({ sourceId: source.id, passage: p, position, text, terms, termCounts, passageScore: passage.score });
        });
        this.passageTerms.set(`${source.id}:${p}`, context);
        for (const t of context) this.vocabulary.add(t);
        if (passage.heading) this.headings.set(`${source.id}:${p}`, passage.heading);
      });
      for (const t of titleTerms) this.vocabulary.add(t);
      this.titles.set(source.id, source.title);
    }
    this.averageLength = this.sentences.reduce((n, s) => n + s.terms.length, 0) / (this.sentences.length || 1) || 1;
  }

  private add(sentence: EvidenceSentence): void {
    const id = this.sentences.length;
    this.sentences.push(sentence);
    this.order.set(sentence, id);
    for (const [term, count] of sentence.termCounts) {
      const list = this.postings.get(term);
      if (list) list.push({ sentence: id, count });
      else this.postings.set(term, [{ sentence: id, count }]);
    }
  }

  /** The sentence before this one in the same passage, if any. */
  before(sentence: EvidenceSentence): EvidenceSentence | null {
    const previous = this.sentences[(this.order.get(sentence) ?? 0) - 1];
    return previous && previous.sourceId === sentence.sourceId && previous.passage === sentence.passage ? previous : null;
  }

  /** The words of the sources that match a term (see sameTerm), computed once per term. */
  wordsMatching(term: string): string[] {
    let found = this.matches.get(term);
    if (!found) {
      found = [];
      for (const word of this.vocabulary) if (sameTerm(term, word)) found.push(word);
      this.matches.set(term, found);
    }
    return found;
  }

  /** BM25 of every sentence against the query terms, matched loosely. */
  bm25(query: string[]): number[] {
    const n = this.sentences.length;
    const scores: number[] = new Array(n).fill(0);
    for (const q of query) {
      const tf = new Map<number, number>();
      for (const word of this.wordsMatching(q))
        for (const p of this.postings.get(word) ?? []) tf.set(p.sentence, (tf.get(p.sentence) ?? 0) + p.count);
      const idf = Math.log(1 + (n - tf.size + 0.5) / (tf.size + 0.5));
      for (const [i, f] of tf)
        scores[i]! += (idf * (f * (K1 + 1))) / (f + K1 * (1 - B + (B * this.sentences[i]!.terms.length) / this.averageLength));
    }
    return scores;
  }

  /** Which of the query terms a sentence contains. */
  matched(query: string[], sentence: EvidenceSentence): string[] {
    return query.filter((q) => this.wordsMatching(q).some((w) => sentence.termCounts.has(w)));
  }

  /** Share of the query terms found in the sentence's passage, heading or source title. */
  passageCoverage(query: string[], sentence: EvidenceSentence): number {
    if (query.length === 0) return 0;
    const context = this.passageTerms.get(`${sentence.sourceId}:${sentence.passage}`) ?? new Set<string>();
    return query.filter((q) => this.wordsMatching(q).some((w) => context.has(w))).length / query.length;
  }

  /** Share of the query terms found anywhere in a source: its title, headings and passages. */
  sourceCoverage(query: string[], sourceId: number): number {
    if (query.length === 0) return 0;
    const own = new Set<string>();
    for (const [key, terms] of this.passageTerms) if (key.startsWith(`${sourceId}:`)) for (const t of terms) own.add(t);
    return query.filter((q) => this.wordsMatching(q).some((w) => own.has(w))).length / query.length;
  }

  title(sourceId: number): string {
    return this.titles.get(sourceId) ?? "";
  }

  heading(sentence: EvidenceSentence): string {
    return this.headings.get(`${sentence.sourceId}:${sentence.passage}`) ?? "";
  }

  /** The sentences holding a word that matches the term. */
  sentencesWith(term: string): EvidenceSentence[] {
    const ids = new Set<number>();
    for (const word of this.wordsMatching(term)) for (const p of this.postings.get(word) ?? []) ids.add(p.sentence);
    return [...ids].sort((a, b) => a - b).map((i) => this.sentences[i]!);
  }

  /**
   * Words of the sources that are another form of a term by its lemma and
   * that sameTerm misses: "written" for "wrote", "bought" for "buy". Only
   * words opening with the term's or its lemma's letter are read.
   */
  lemmaVariants(terms: string[]): string[] {
    const out = new Set<string>();
    for (const term of terms) {
      const lemma = lemmaOf(term);
      if (lemma.length < 3) continue;
      for (const word of this.vocabulary) {
        if ((word[0] !== term[0] && word[0] !== lemma[0]) || sameTerm(term, word)) continue;
        if (lemmaOf(word) === lemma) out.add(word);
      }
    }
    return [...out];
  }

  /** Whether any word of the sources matches the term. */
  mentions(term: string): boolean {
    return this.wordsMatching(term).length > 0;
  }
}
