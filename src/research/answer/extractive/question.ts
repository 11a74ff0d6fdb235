/**
 * What kind of thing a question asks for, read from its question words in
 * English, German, French and Spanish, and whether a sentence holds such a
 * thing. A sentence that shares the question's terms and also holds a year
 * for "when" or a name for "who" is far more likely to answer it than one
 * that only repeats the topic.
 */
import { isStopword, words } from "../../../terms.ts";
import { queryTerms, sameTerm, termSpans } from "../evidence.ts";
import { withSynonyms } from "../synonyms.ts";
import { entitySpans } from "../entities.ts";
import { answerNames, subjectPhrases, subjectWords } from "../subject.ts";
import { dateSpans, hasDate, nameSpans, numberMentions } from "../values.ts";

export type AnswerKind = "number" | "measure" | "date" | "person" | "place" | "yesno" | "definition" | "list" | "named" | "reason";

const ASKS: [AnswerKind, RegExp][] = [
  [
    "number",
    /(?<![\p{L}])(?:how (?:many|much)|number of|wie viele?|combien|cu[aá]nt[oa]s?|quant[oa]s?|population|price|cost|(?:what|which) (?:share|percentage|proportion|rate|fraction)|what per ?cent)(?![\p{L}])/iu,
  ],
  [
    "measure",
    /(?<![\p{L}])(?:how (?:tall|high|big|large|long|far|old|heavy|deep|wide|loud|hot|cold|warm|fast)|(?:what|which) temperature|wie (?:hoch|groß|gross|lang|weit|alt|schwer|tief|breit)|quelle (?:est la )?(?:hauteur|taille|longueur)|combien mesure|qué (?:altura|tamaño)|height|length|altitude|höhe|hauteur|altura)(?![\p{L}])/iu,
  ],
  [
    "date",
    /(?<![\p{L}])(?:when|what (?:year|date)|which year|since when|wann|welchem jahr|seit wann|quand|quelle année|en quelle année|cuándo|qué año)(?![\p{L}])/iu,
  ],
  ["person", /(?:^|[^\p{L}])(?:who|whom|whose|wer|wem|wen|qui|quién|quiénes)(?![\p{L}])/iu],
  [
    "place",
    /(?:^|[^\p{L}])(?:where|wo|woher|où|dónde|(?:which|what) (?:place|city|town|village|country|region|province|state|area|location|island|county|district))(?![\p{L}])/iu,
  ],
  ["reason", /(?:^|[^\p{L}])(?:why|warum|wieso|pourquoi|por qué)(?![\p{L}])/iu],
  [
    "yesno",
    /^\s*(?:is|are|was|were|does|do|did|can|could|has|have|had|will|should|ist|sind|war|hat|haben|kann|gibt|est-ce|es|son|puede)(?![\p{L}])/iu,
  ],
  [
    "definition",
    /^\s*(?:(?:what|who) (?:is|are|was|were)|was (?:ist|sind)|qu['’]est-ce que|que sont|qué (?:es|son)|quién es)(?![\p{L}])/iu,
  ],
  [
    "list",
    /^\s*(?:which \p{L}+ (?:are|were)|what are the|list|name the|welche \p{L}+ (?:sind|waren)|quels sont|quelles sont|cuáles son)(?![\p{L}])/iu,
  ],
];

/** What the question asks, as the answerer uses it. */
export interface Question {
  /** The prompt's own terms: BM25 at full weight. */
  terms: string[];
  /** The planned queries' terms and the table's synonyms: BM25 at half weight. */
  extra: string[];
  /** Terms that are not the subject's name: what is asked about the subject. */
  predicate: string[];
  /** The subject's words, and its names as phrases. */
  subject: string[];
  phrases: string[][];
  kinds: Set<AnswerKind>;
  /** The nouns after "which" or "what" ("Which hospital…" → hospital): the answer is a name of that kind. */
  heads: string[];
  /** Numbers and dates the question itself states ("the 14-year-old passenger"): an answer holds others. */
  given: { numbers: number[]; dates: string[] };
}

export function readQuestion(prompt: string, queries: string[] = []): Question {
  const terms = queryTerms(prompt);
  const fromQueries = queryTerms(queries.join(" "));
  const extra = withSynonyms([...terms, ...fromQueries]).filter((t) => !terms.some((q) => sameTerm(q, t)));
  const subject = [...new Set([...subjectWords(prompt), ...queries.flatMap(subjectWords)])];
  const predicate = [...terms, ...extra].filter((t) => !subject.some((w) => sameTerm(w, t)));
  const phrases = [...subjectPhrases(prompt), ...queries.flatMap((q) => subjectPhrases(q))];
  const heads = headNouns(prompt);
  const kinds = answerKinds(prompt);
  // "Which planets are gas giants?" asks for several: the list kind covers it.
  if (heads.length && !kinds.has("list")) kinds.add("named");
  const given = {
    numbers: numberMentions(prompt).map((n) => n.value),
    dates: dateSpans(prompt).map((d) => d.text.toLowerCase()),
  };
  return { terms, extra, predicate, subject, phrases, kinds, heads, given };
}

// What follows "which"/"what" up to its verb: "Which animal welfare group received…" → animal, welfare, group.
const WHICH =
  /(?:^|[^\p{L}])(?:which|what)\s+((?:[\p{L}-]+\s+){0,3}?)(?:is|was|are|were|did|does|do|has|have|had|will|would|can|could|recorded|received|won|became|got|get|sentenced|made|makes|took|takes)(?![\p{L}])/iu;

function headNouns(prompt: string): string[] {
  const run = WHICH.exec(prompt)?.[1] ?? "";
  return words(run).filter((w) => !isStopword(w) && w.length > 2);
}

function answerKinds(prompt: string): Set<AnswerKind> {
  const kinds = new Set<AnswerKind>();
  for (const [kind, pattern] of ASKS) if (pattern.test(prompt)) kinds.add(kind);
  // "Who is the CEO" asks for a person even without "who": role words do it too.
  if (
    /(?<![\p{L}])(?:founder|ceo|president|author|inventor|architect|designer|creator|director|chairman|gründer|fondateur|fundador)(?![\p{L}])/iu.test(
      prompt,
    )
  )
    kinds.add("person");
  if (kinds.has("measure")) kinds.add("number");
  return kinds;
}

// "in Paris", "on Zandmotor beach", "in rural South Georgia": a preposition, at most two lowercase words, a name.
// A place cue, up to the place's first letter: "in rural South Georgia", "near The Hague".
const PLACE_CUES = /(?:^|[^\p{L}])(?:in|at|near|from|on|à|au|en|bei|im|nahe)\s+(?:\p{Ll}+\s+){0,2}(?=\p{Lu})/gu;
const REASON_CUE =
  /(?:^|[^\p{L}])(?:because|due to|owing to|thanks to|as a result|caused by|the reason|reasons? for|so that|in order to|helps? (?:to )?(?:keep|make|prevent|avoid)|which is why|that is why|led to|leading to|driven by|driving)(?![\p{L}])/iu;
const COPULA = /^(?:is|are|was|were|refers|means|describes|ist|sind|war|bezeichnet|est|sont|désigne|es|son)$/;
// "A, B and C": a comma, then a conjunction after it (two tests, not one backtracking pattern).
const CONJUNCTION = /\s(?:and|or|und|oder|et|ou|y|o)\s/u;
const enumerates = (sentence: string) => sentence.includes(",") && CONJUNCTION.test(sentence.slice(sentence.indexOf(",")));

/** A place after "in", "at", "near"… that is not the question's own ("in Southwest Miami-Dade" answers no "where" about it). */
function newPlace(sentence: string, subject: string[]): boolean {
  for (const m of sentence.matchAll(PLACE_CUES)) {
    // "in The Netherlands" is named by its second word; "on Tuesday" names a day, not a place.
    const run = /^(?:The\s+)?(\p{Lu}[\p{L}'’]*)/u.exec(sentence.slice(m.index + m[0].length));
    const name = run?.[1]?.toLowerCase() ?? "";
    if (!name || NOT_PLACES.test(name)) continue;
    if (!subject.some((w) => sameTerm(w, name))) return true;
  }
  return false;
}

const NOT_PLACES =
  /^(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december)$/;

/** A surname in the possessive mid-sentence ("a portrait of Tegnell's face"): "whose" is answered by one word. */
function ownerSurname(sentence: string, subject: string[]): boolean {
  for (const m of sentence.matchAll(/(?<=\s)(\p{Lu}\p{Ll}{2,})['’]s\s/gu)) if (!subject.includes(m[1]!.toLowerCase())) return true;
  return false;
}

/** How many of the asked-for kinds the sentence holds (0 when none). */
export function kindFit(question: Question, sentence: string): number {
  const { kinds } = question;
  let fit = 0;
  // What the question states is not its answer: "a 15-year-old driver" in the question makes no sentence's 15 an answer.
  const given = question.given;
  const numbers =
    kinds.has("number") || kinds.has("measure") || kinds.has("date")
      ? numberMentions(sentence).filter((n) => !given.numbers.includes(n.value))
      : [];
  if (kinds.has("number") && numbers.some((n) => !n.isYear)) fit++;
  if (kinds.has("measure") && numbers.some((n) => n.unit !== null)) fit++;
  if (kinds.has("date")) {
    const dates = dateSpans(sentence).filter((d) => !given.dates.includes(d.text.toLowerCase()));
    if (dates.length) fit += 1.2;
    else if (hasDate(sentence) && numbers.some((n) => n.isYear)) fit += 1;
  }
  if (kinds.has("person") && (answerNames(sentence, question.subject).length || ownerSurname(sentence, question.subject))) fit++;
  if (kinds.has("place") && newPlace(sentence, question.subject)) fit++;
  if (kinds.has("reason") && REASON_CUE.test(sentence)) fit++;
  if (kinds.has("named") && namesHead(sentence, question)) fit += 1.5;
  if (kinds.has("definition") && definesTerm(sentence, question.terms)) fit += 1.5;
  if (
    kinds.has("list") &&
    (enumerates(sentence) || nameSpans(sentence, 1).filter((n) => !question.subject.includes(n.text.toLowerCase())).length >= 2)
  ) {
    fit += statesDirectly(sentence, question.terms) ? 1.5 : 1;
  }
  return fit;
}

/**
 * A name of the kind asked for: "Which hospital…" is answered by "HCA Florida
 * Kendall Hospital" (the noun inside the name) or "Zandmotor beach" (beside it).
 */
function namesHead(sentence: string, question: Question): boolean {
  const heads = question.heads;
  const headSpans = termSpans(sentence, heads);
  return entitySpans(sentence).some((span) => {
    const own = words(span.text);
    if (own.every((w) => question.subject.includes(w))) return false;
    if (own.some((w) => heads.some((h) => sameTerm(h, w)))) return own.length > 1;
    return headSpans.some((h) => (h.index >= span.end ? h.index - span.end : span.index - h.end) <= 2);
  });
}

/** "Photosynthesis is the process...": the sentence opens on a question term, then a copula. */
function definesTerm(sentence: string, terms: string[]): boolean {
  const head = words(sentence).slice(0, 8);
  const first = head.findIndex((w) => !isStopword(w));
  return first >= 0 && terms.some((t) => sameTerm(t, head[first]!)) && head.slice(first + 1).some((w) => COPULA.test(w));
}

/** "The gas giants are Jupiter and Saturn", "Jupiter and Saturn are gas giants": a question term right beside a copula. */
function statesDirectly(sentence: string, terms: string[]): boolean {
  const all = words(sentence);
  return all.some(
    (w, i) => COPULA.test(w) && [all[i - 1], all[i + 1], all[i + 2]].some((n) => n !== undefined && terms.some((t) => sameTerm(t, n))),
  );
}
