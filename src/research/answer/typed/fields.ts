/**
 * How typed extraction reads a field and finds the sentences that speak of
 * it. A field's name is its question: "founded_year" asks "founded year",
 * "headquarters.city" asks about the headquarters' city. Sentences are
 * ranked by BM25 against the field's words (the leaf at full weight, its
 * parents and synonyms at half) plus a little of the prompt, which names the
 * subject; sentences about a namesake of the subject are pushed down.
 */
import { isStopword } from "../../../terms.ts";
import { queryTerms, sameTerm, termSpans, termsOf, type EvidenceSentence, type SentenceIndex } from "../evidence.ts";
import { namesAnotherSubject, namesSubject, subjectPhrases, subjectWords } from "../subject.ts";
import { withSynonyms } from "../synonyms.ts";

export interface FieldQuery {
  /** Field names from the root to this field: ["headquarters", "city"]. */
  path: string[];
  /** Words of the leaf name, and of the whole path. */
  leaf: string[];
  words: string[];
  /** Terms to search with: leaf words first, then parents' words and synonyms. */
  terms: string[];
  /** The other words of the prompt's clause that asks for this field (see clauses.ts), when it has one. */
  clause?: string[];
}

/** A stretch of a sentence to extract from, with how strongly it speaks of the field. */
export interface Evidence {
  sentence: EvidenceSentence;
  /** The part of the sentence to look in. */
  text: string;
  score: number;
  /** The text's terms, when already known. */
  terms?: string[];
}

/** "founded_year" → ["founded", "year"]; "foundedYear" and "Founded Year" alike. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([\p{Ll}\d])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

// Field-name words that shape the value but never appear beside it in prose.
const NAME_NOISE = new Set(
  "is has have can does did uses use list of per the a an value text name names number num count total amount".split(" "),
);

export function fieldQuery(path: string[]): FieldQuery {
  const leaf = nameWords(path[path.length - 1] ?? "");
  const words = path.flatMap(nameWords);
  const meaningful = (w: string[]) => w.filter((x) => !NAME_NOISE.has(x) && !isStopword(x) && (x.length > 1 || /\d/.test(x)));
  const leafTerms = meaningful(leaf);
  const unique = [...leafTerms, ...meaningful(words)].filter((t, i, all) => all.findIndex((o) => sameTerm(o, t)) === i);
  // Stems join after the dedupe: sameTerm holds "hosting" and "host" the same, yet only "host" meets "hosted".
  const stems = leafTerms.flatMap(stemsOf).filter((s) => !unique.includes(s));
  const terms = withSynonyms([...unique, ...stems]);
  return { path, leaf, words, terms };
}

/**
 * A sentence that says none of the field's words may still hold its value
 * when it is among the prompt's best ("…$1,200, according to
 * Graduationparty.com" for source_website); its weight is then the prompt's
 * share alone. Only for values with a written form of their own (a web
 * address): any other value there would be a guess.
 */
const PROMPT_ONLY = 0.6;
/** How much the prompt's clause for a field counts against the field's own words (1). */
const CLAUSE_WEIGHT = 0.5;

/**
 * The stem of a field word written as a verb's noun or participle
 * ("hosting" → "host", "provider" → "provid"), which the inflection
 * matching of sameTerm does not reach from the other form ("hosted").
 */
function stemsOf(word: string): string[] {
  const short = /^(.{4,}?)(?:ation|ing|ion|ed)$/.exec(word) ?? /^(.{5,}?)(?:ers|er|ors|or)$/.exec(word);
  return short ? [short[1]!] : [];
}

export class FieldSearch {
  private readonly promptScores: number[];
  private readonly phrases: string[][];
  private readonly subject: string[];
  private readonly titleNamesake = new Map<number, boolean>();
  /**
   * Per source, how much it speaks of the prompt's subject and how well the
   * ranker scored it, against the best source: every field of one answer is
   * about the prompt's subject, so a value from a page about something else
   * ("Since version 3.3" for when Mugabe took power) must beat a far better
   * sentence to win.
   */
  private readonly sourceFit = new Map<number, number>();
  /** Per sentence, once per call: every field asks again. */
  private readonly factors = new Map<EvidenceSentence, number>();

  constructor(
    readonly index: SentenceIndex,
    prompt: string,
  ) {
    this.promptScores = index.bm25(queryTerms(prompt));
    const best = this.promptScores.reduce((m, s) => Math.max(m, s), 0) || 1;
    this.promptScores = this.promptScores.map((s) => s / best);
    this.phrases = subjectPhrases(prompt);
    this.subject = subjectWords(prompt);
    // The prompt's named things say what it is about; its other words ("facts", "profile") say little.
    const asked = this.subject.length ? this.subject : queryTerms(prompt);
    // A source's relevance is its best passage's, as the ranker scored it against the whole question (0 to 1).
    const relevance = new Map<number, number>();
    for (const s of index.sentences) relevance.set(s.sourceId, Math.max(relevance.get(s.sourceId) ?? 0, s.passageScore));
    for (const id of relevance.keys()) this.sourceFit.set(id, index.sourceCoverage(asked, id));
    const bestFit = Math.max(0, ...this.sourceFit.values()) || 1;
    const bestRelevance = Math.max(0, ...relevance.values()) || 1;
    for (const [id, fit] of this.sourceFit) {
      const ranked = Math.min(1, Math.max(0, (relevance.get(id) ?? 0) / bestRelevance));
      this.sourceFit.set(id, (0.4 + 0.6 * (fit / bestFit)) * (0.25 + 0.75 * ranked * ranked));
    }
  }

  /**
   * Sentences that mention the field's terms, best first, at most `limit`;
   * with `promptOnly`, also the prompt's best sentences that do not.
   */
  rank(field: FieldQuery, limit = 12, promptOnly = false): Evidence[] {
    if (field.terms.length === 0) return [];
    const isLeaf = (t: string) => field.leaf.some((l) => sameTerm(l, t));
    const leafTerms = field.terms.some(isLeaf) ? field.terms.filter(isLeaf) : field.terms;
    const otherTerms = field.terms.filter((t) => !leafTerms.includes(t));
    const leafScores = this.index.bm25(leafTerms);
    const otherScores = this.index.bm25(otherTerms);
    const best = leafScores.reduce((m, s, i) => Math.max(m, s + 0.5 * otherScores[i]!), 0) || 1;
    const clauseScores = this.index.bm25(field.clause ?? []);
    const bestClause = clauseScores.reduce((m, s) => Math.max(m, s), 0) || 1;
    const out: Evidence[] = [];
    this.index.sentences.forEach((sentence, i) => {
      const own = (leafScores[i]! + 0.5 * otherScores[i]!) / best;
      const asked = clauseScores[i]! / bestClause;
      if (own <= 0 && asked <= 0 && !(promptOnly && this.promptScores[i]! >= PROMPT_ONLY)) return;
      const score =
        (own + CLAUSE_WEIGHT * asked + 0.3 * this.promptScores[i]!) *
        (0.85 + 0.15 * Math.min(1, Math.max(0, sentence.passageScore))) *
        (this.sourceFit.get(sentence.sourceId) ?? 1);
      out.push({ sentence, text: sentence.text, score });
    });
    // The subject checks cost more than BM25: only the best few sentences are weighed by them.
    const shortlist = out.sort((a, b) => b.score - a.score).slice(0, limit * 3);
    for (const ev of shortlist) ev.score *= this.subjectFactor(ev.sentence);
    return shortlist.sort((a, b) => b.score - a.score).slice(0, limit);
  }

  /** Sentences about a namesake ("Acme Markets" for "Acme Corp"), or from a page that never names the subject, count less. */
  private subjectFactor(sentence: EvidenceSentence): number {
    const known = this.factors.get(sentence);
    if (known !== undefined) return known;
    let factor = 1;
    if (namesAnotherSubject(sentence.text, this.phrases)) factor *= 0.3;
    if (!this.titleNamesake.has(sentence.sourceId))
      this.titleNamesake.set(sentence.sourceId, namesAnotherSubject(this.index.title(sentence.sourceId), this.phrases));
    if (this.titleNamesake.get(sentence.sourceId) && !namesSubject(sentence.terms, this.phrases)) factor *= 0.3;
    if (this.subject.length && this.index.passageCoverage(this.subject, sentence) === 0) factor *= 0.5;
    this.factors.set(sentence, factor);
    return factor;
  }
}

/** Offsets in `text` of words matching any of the terms. */
export function termOffsets(text: string, terms: string[]): number[] {
  return termSpans(text, terms).map((s) => s.index);
}

/**
 * Closeness of a span to the nearest field word (spans from termSpans), from
 * 1 (beside it) towards 0 (far or absent), counted in the characters between
 * them: "26 Meter hoch und 65,5 Meter breit" puts 26 beside "hoch", not 65,5.
 */
export function proximity(fieldWords: { index: number; end: number }[], span: { index: number; end: number }): number {
  let gap = Infinity;
  for (const w of fieldWords) gap = Math.min(gap, w.end <= span.index ? span.index - w.end : w.index >= span.end ? w.index - span.end : 0);
  return gap === Infinity ? 0.25 : 1 / (1 + gap / 18);
}

/** Whether a text holds any of the terms; a text whose terms are already known is not read again. */
export function hasTerm(text: string | Pick<Evidence, "text" | "terms">, terms: string[]): boolean {
  const own = typeof text === "string" ? termsOf(text) : (text.terms ?? termsOf(text.text));
  return own.some((w) => terms.some((t) => sameTerm(t, w)));
}
