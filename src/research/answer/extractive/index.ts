/**
 * The answerer used when no LLM is configured: it answers with sentences
 * quoted verbatim from the ranked passages, each followed by the [n] of every
 * source that contains it word for word. It never writes a sentence of its
 * own except to say, plainly, that the sources do not answer the question;
 * the one thing it adds inside a quote is a pronoun's entity, in square
 * brackets (see pronouns.ts).
 *
 * A sentence's score is BM25 against the question's terms (and, at half
 * weight, the planned queries' terms), scaled by how many of the question's
 * terms it covers, by how much of the question its passage is about, by the
 * passage's own rank, and boosted when it holds the kind of thing asked for
 * (a year for "when", a name for "who", a number for "how many").
 */
import { isStopword } from "../../../terms.ts";
import type { EvidenceSource } from "../../types.ts";
import { SentenceIndex, sameTerm, termsOf, type EvidenceSentence } from "../evidence.ts";
import { pronounEntity, resolveOpeningPronoun } from "./pronouns.ts";
import { namesAnotherSubject, namesSubject } from "../subject.ts";
import { kindFit, readQuestion, type AnswerKind, type Question } from "./question.ts";

// How a reader recovers the quote from an answer's sentence: the pronoun's entity in brackets is ours, the rest is the source's.
export { quotedText } from "./pronouns.ts";

export interface ExtractiveAnswer {
  /** The answer text: sentences taken from the passages, each followed by its citation marker [n]. */
  text: string;
  /** For each cited source id, the exact sentences used from it (each one a substring of one of that source's passages). */
  citations: Map<number, string[]>;
}

/**
 * An answer is at most three sentences, and a sentence joins it if it scores
 * at least a fifth of the best one (and speaks of what was asked, of the kind
 * asked): the sentence holding the fact often scores well below the topic
 * sentence that repeats the question's words, so a short answer with a low
 * bar finds it more often than a long one with a high bar. Weak sentences
 * keep the high bar (see Scored.weak), so answers grow no longer on average.
 */
const DEFAULT_MAX_SENTENCES = 3;
const KEEP_RATIO = 0.2;
/** The bar for a weak sentence (see Scored.weak). */
const WEAK_RATIO = 0.5;
/** How far below the best a sentence holding the kind asked for may score and still be quoted when no better one holds it. */
const TYPED_RATIO = 0.2;
/** Sentences sharing this share of their terms say the same thing. */
const DUPLICATE_JACCARD = 0.6;

const NO_ANSWER: Record<string, string> = {
  en: "I could not find sources that answer this question.",
  de: "Ich konnte keine Quellen finden, die diese Frage beantworten.",
  fr: "Je n'ai pas trouvé de sources qui répondent à cette question.",
  es: "No encontré fuentes que respondan a esta pregunta.",
};

export function composeAnswer(input: {
  prompt: string;
  queries?: string[];
  sources: EvidenceSource[];
  maxSentences?: number;
}): ExtractiveAnswer {
  const none = { text: NO_ANSWER[language(input.prompt)]!, citations: new Map<number, string[]>() };
  const index = new SentenceIndex(input.sources);
  let question = readQuestion(input.prompt, input.queries);
  // "Who wrote X?" is answered by "X was written by…": the question's words in their other forms count as its own.
  const variants = index.lemmaVariants(question.terms);
  if (variants.length) question = { ...question, extra: [...question.extra, ...variants], predicate: [...question.predicate, ...variants] };
  if (index.sentences.length === 0 || question.terms.length + question.extra.length === 0) return none;
  // Sources that never name what the question is about, or never speak of what
  // is asked about it, do not answer it, whatever other words they share.
  if (question.subject.length && !question.subject.some((w) => index.mentions(w))) return none;
  if (question.predicate.length && !question.predicate.some((w) => index.mentions(w))) {
    // "Eiffel Tower overview" asks for nothing in particular: what the sources say of the subject will do.
    // "What is the population of Mars?" asks for a number the sources never speak of.
    const specific = [...question.kinds].some((k) => k !== "definition" && k !== "named" && k !== "reason");
    if (specific || question.subject.length === 0) return none;
    question = { ...question, predicate: [] };
  }

  const scored = scoreSentences(index, question);
  const order = index.sentences
    .map((_, i) => i)
    .filter((i) => scored[i]!.score > 0)
    .sort((a, b) => scored[b]!.score - scored[a]!.score);
  if (order.length === 0) return none;
  const best = scored[order[0]!]!.score;
  const max = Math.max(1, input.maxSentences ?? DEFAULT_MAX_SENTENCES);
  const chosen: EvidenceSentence[] = [];
  const chosenTerms: Set<string>[] = [];
  for (const i of order) {
    if (chosen.length >= max || scored[i]!.score < best * KEEP_RATIO) break;
    // After the best sentence, only sentences that say something about what was asked, of the kind asked;
    // a weak one (a namesake's, or one sharing a single word with the question) must come close to the best.
    if (chosen.length > 0 && (!scored[i]!.answers || (scored[i]!.weak && scored[i]!.score < best * WEAK_RATIO))) continue;
    const sentence = index.sentences[i]!;
    const own = contentSet(sentence.text);
    if (chosenTerms.some((t) => jaccard(t, own) >= DUPLICATE_JACCARD)) continue;
    chosen.push(sentence);
    chosenTerms.push(own);
  }
  // A topic sentence that repeats the question's words can outscore the one holding what was asked
  // ("…a 14-year-old girl in the passenger seat" over "…rushed the passenger to Kendall Hospital"):
  // when no chosen sentence holds the kind asked for, the best one that does joins them.
  if (chosen.length < max && question.kinds.size > 0 && !chosen.some((s) => kindFit(question, s.text) > 0)) {
    const typed = order.find(
      (i) => scored[i]!.score >= best * TYPED_RATIO && scored[i]!.answers && kindFit(question, index.sentences[i]!.text) > 0,
    );
    if (typed !== undefined && !chosen.includes(index.sentences[typed]!)) chosen.push(index.sentences[typed]!);
  }

  const citations = new Map<number, string[]>();
  const parts = chosen.map((sentence) => {
    // The same sentence, word for word, in other sources is cited once with all of them: "[1][3]".
    const ids = input.sources
      .filter((s) => s.id === sentence.sourceId || s.passages.some((p) => p.text.includes(sentence.text)))
      .map((s) => s.id);
    for (const id of ids) citations.set(id, [...(citations.get(id) ?? []), sentence.text]);
    return `${resolveOpeningPronoun(sentence, index, question.phrases)} ${ids.map((id) => `[${id}]`).join("")}`;
  });
  return { text: parts.join(" "), citations };
}

interface Scored {
  score: number;
  /** Whether the sentence speaks of what was asked (a predicate term) and holds the kind asked for. */
  answers: boolean;
  /**
   * Whether it names a namesake of the subject, stands where the subject is
   * not named, or holds fewer than two of the question's own words (not the
   * subject's): such a sentence follows the best one only if it comes close.
   */
  weak: boolean;
}

/**
 * Only this many sentences, the best by their words alone, are weighed for
 * kind, namesakes and subject: those checks cost far more than BM25, and no
 * boost lifts a sentence from below this rank to the top of an answer.
 */
const CANDIDATES = 60;
/** How much the sentence before counts towards a sentence's coverage of the question, and towards its relevance. */
const SCENE_WEIGHT = 0.5;
const SCENE_RELEVANCE = 0.25;
const SOFT_KINDS = new Set<AnswerKind>(["yesno", "definition", "named", "reason"]);
/** How much the subject's own words count in a sentence against what is asked about it. */
const SUBJECT_WEIGHT = 0.5;

function scoreSentences(index: SentenceIndex, question: Question): Scored[] {
  // The subject's name is context (its passage and source must name it); what is asked about it is the answer's word.
  const isSubject = (t: string) => question.subject.some((w) => sameTerm(w, t));
  const asked = question.terms.filter((t) => !isSubject(t));
  const named = question.terms.filter(isSubject);
  const askedScores = index.bm25(asked);
  const namedScores = index.bm25(named);
  const main = askedScores.map((a, i) => a + SUBJECT_WEIGHT * namedScores[i]!);
  const side = index.bm25(question.extra);
  const all = [...question.terms, ...question.extra];
  const coverageOf = question.terms.length ? question.terms : question.extra;
  const passageCoverage = new Map<string, number>();
  const base = index.sentences.map((sentence, i) => {
    // The sentence before sets the scene ("A crash killed… . Paramedics rushed her to Kendall Hospital."):
    // the question's words it holds count towards the next one's coverage, at a discount.
    const scene = index.before(sentence);
    const relevance = main[i]! + 0.5 * side[i]! + (scene ? SCENE_RELEVANCE * main[i - 1]! : 0);
    if (relevance <= 0) return 0;
    const own = covered(index, coverageOf, sentence, question.phrases);
    const inherited = scene ? index.matched(coverageOf, scene).filter((t) => !index.matched([t], sentence).length).length : 0;
    const coverage = Math.min(coverageOf.length, own + SCENE_WEIGHT * inherited) / coverageOf.length;
    const key = `${sentence.sourceId}:${sentence.passage}`;
    if (!passageCoverage.has(key)) passageCoverage.set(key, index.passageCoverage(all, sentence));
    const context = passageCoverage.get(key)!;
    return (
      relevance *
      (0.5 + coverage) *
      (0.7 + 0.3 * context) *
      (0.85 + 0.15 * Math.min(1, Math.max(0, sentence.passageScore))) *
      shapeFactor(sentence.text)
    );
  });
  const scored: Scored[] = base.map(() => ({ score: 0, answers: false, weak: false }));
  const candidates = base
    .map((_, i) => i)
    .filter((i) => base[i]! > 0)
    .sort((a, b) => base[b]! - base[a]!)
    .slice(0, CANDIDATES);
  const titles = new Map<number, boolean>();
  // A definition's later sentences may explain without defining again.
  const kindRequired = [...question.kinds].some((k) => !SOFT_KINDS.has(k));
  for (const i of candidates) {
    const sentence = index.sentences[i]!;
    let score = base[i]!;
    const fit = kindFit(question, sentence.text);
    score *= fit > 0 ? 1 + 0.6 * fit : kindRequired ? 0.5 : 1;
    const predicate = question.predicate.length === 0 || index.matched(question.predicate, sentence).length > 0;
    if (!predicate) score *= 0.3;
    // A namesake ("Tokyo Tower" for "Eiffel Tower") in the sentence, or in the title of a
    // source that never names the subject, marks an answer to another question.
    if (!titles.has(sentence.sourceId))
      titles.set(sentence.sourceId, namesAnotherSubject(index.title(sentence.sourceId), question.phrases));
    const namesake = namesAnotherSubject(sentence.text, question.phrases);
    if (namesake) score *= 0.4;
    // On a namesake's page even a sentence naming the subject is mostly a comparison ("Inspired by the Eiffel Tower, it...").
    if (titles.get(sentence.sourceId)) score *= namesSubject(sentence.terms, question.phrases) ? 0.6 : 0.3;
    const unnamed = question.subject.length > 0 && index.passageCoverage(question.subject, sentence) === 0;
    if (unnamed) score *= 0.4;
    const elsewhere = namesake || titles.get(sentence.sourceId)! || unnamed;
    // "…two years, two months and five days" shares only "year" with "How many people visit it each year?".
    const loose = index.matched(asked, sentence).length < Math.min(asked.length, 2);
    scored[i] = { score, answers: predicate && (!kindRequired || fit > 0), weak: elsewhere || loose };
  }
  return scored;
}

/** How many of the terms a sentence holds, counting the entity its opening pronoun stands for ("It [Eiffel Tower] was…"). */
function covered(index: SentenceIndex, terms: string[], sentence: EvidenceSentence, phrases: string[][]): number {
  const own = index.matched(terms, sentence);
  const entity = own.length < terms.length ? pronounEntity(sentence, index, phrases) : null;
  if (!entity) return own.length;
  const named = termsOf(entity);
  return own.length + terms.filter((t) => !own.includes(t) && named.some((w) => sameTerm(t, w))).length;
}

/** Questions, headings, titles, list introductions and fragments rarely answer anything; run-ons make poor answers. */
function shapeFactor(text: string): number {
  const count = text.split(/\s+/).length;
  let factor = 1;
  if (/[?:]["'”’)]*$/u.test(text)) factor *= 0.3;
  if (count < 4 && !/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(text)) factor *= 0.4;
  if (count > 60) factor *= 0.6;
  // A short line without a full stop is a title or heading: it names the topic rather than saying anything of it.
  if (count < 12 && !/[.!?…。！？]["'”’)\]]*$/u.test(text)) factor *= 0.6;
  return factor;
}

function contentSet(text: string): Set<string> {
  return new Set(termsOf(text).filter((t) => !isStopword(t)));
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const x of a) if (b.has(x)) shared++;
  return shared / (a.size + b.size - shared);
}

// The no-answer sentence is the one line we write ourselves, so it is written in the question's language.
function language(prompt: string): keyof typeof NO_ANSWER {
  const hits = { de: 0, fr: 0, es: 0 };
  for (const w of prompt.toLowerCase().match(/[\p{L}]+/gu) ?? []) {
    if (/^(?:der|die|das|und|ist|wurde|wann|wer|wie|welche|nicht|ein|eine|hat|gibt|von|mit)$/.test(w)) hits.de++;
    if (/^(?:le|la|les|est|quand|qui|combien|quelle|quel|une|des|du|et|où|été)$/.test(w)) hits.fr++;
    if (/^(?:el|los|las|es|cuándo|quién|cuántos|qué|una|del|y|fue|dónde)$/.test(w)) hits.es++;
  }
  const [lang, count] = Object.entries(hits).sort((a, b) => b[1] - a[1])[0]!;
  return count >= 2 ? (lang as keyof typeof NO_ANSWER) : "en";
}
