/**
 * Numbers and yes/no values for typed extraction. A number is chosen among
 * every number in the field's best sentences by what the field's name says
 * it is (a year, money, a percentage, a measure, a count) and by how close it
 * sits to the field's words; a yes/no by whether the statement about the
 * field's words, or their opposite ("private" for "public"), is negated.
 */
import { words } from "../../../terms.ts";
import { termSpans, termsOf, type EvidenceSentence } from "../evidence.ts";
import { hasTerm, proximity, termOffsets, type Evidence, type FieldQuery } from "./fields.ts";
import { dateSpans, isNegated, nameSpans, namesSubjectWord, numberMentions, type NumberMention } from "../values.ts";

export interface Found<T> {
  value: T;
  /** The sentences the value was read from. */
  sentences: EvidenceSentence[];
}

type NumberKind = "year" | "age" | "money" | "percent" | "measure" | "count";

const YEAR_WORDS =
  /^(?:year|founded|founding|established|built|completed|completion|opened|opening|launched|released|born|incorporated|started|created|inception|since|jahr|baujahr|gründung|gegründet|fertiggestellt|eröffnet|erbaut|gebaut|année|achevée|construite|fondée|año)$/;
const NOT_YEAR = /^(?:per|each|annual|annually|yearly|average|avg|count|number|visitors|revenue|users|employees)$/;
const MONEY_WORDS =
  /^(?:price|prices|cost|costs|revenue|revenues|salary|funding|valuation|budget|income|sales|fee|fees|fine|fines|worth|capital|profit|earnings|spend|spending|usd|eur|gbp|yuan|yen|sek|inr|dollars|euros|preis|umsatz|prix)$/;
const AGE_WORDS = /^(?:age|aged|old)$/;
const PERCENT_WORDS = /^(?:percent|percentage|pct|share|rate|ratio|margin|growth)$/;
const MEASURE_WORDS =
  /^(?:height|tall|length|long|width|wide|depth|deep|weight|heavy|area|distance|size|elevation|altitude|diameter|span|speed|capacity|storage|temperature|temp|warming|degrees|celsius|fahrenheit|c|f|tb|gb|mb|m|km|cm|mm|ft|feet|metres|meters|miles|kg|tons|tonnes|höhe|hauteur)$/;
const UNIT_GROUPS = [
  ["m", "metre", "metres", "meter", "meters", "mètre", "mètres", "metro", "metros"],
  ["km", "kilometres", "kilometers"],
  ["cm"],
  ["mm"],
  ["ft", "feet", "foot"],
  ["mi", "miles", "mile"],
  ["kg", "kilograms"],
  ["tons", "tonnes", "tonnen"],
  ["c", "°c", "celsius", "degrees", "degree", "°"],
  ["f", "°f", "fahrenheit"],
  ["tb"],
  ["gb"],
  ["mb"],
];

/** What the field's number is, from its own name first ("revenue_growth_percent" is a percentage), then its parents'. */
function numberKind(field: FieldQuery): NumberKind {
  // The last word is the unit the value is given in: "interest_next_year_usd" is money, whatever year it is for.
  const head = field.leaf[field.leaf.length - 1] ?? "";
  if (MONEY_WORDS.test(head)) return "money";
  if (PERCENT_WORDS.test(head)) return "percent";
  for (const words of [field.leaf, field.words]) {
    if (words.some((w) => AGE_WORDS.test(w))) return "age";
    if (words.some((w) => YEAR_WORDS.test(w)) && !field.words.some((w) => NOT_YEAR.test(w))) return "year";
    if (words.some((w) => PERCENT_WORDS.test(w))) return "percent";
    if (words.some((w) => MONEY_WORDS.test(w))) return "money";
    if (words.some((w) => MEASURE_WORDS.test(w))) return "measure";
  }
  return "count";
}

/** How well a number fits what the field is: 0 rules it out. */
function fit(kind: NumberKind, m: NumberMention, unitHint: string[] | undefined): number {
  if (kind === "year") return m.isYear ? 1 : 0;
  if (kind === "age") return m.isWord || m.isMoney || m.isPercent || m.isYear || m.value <= 0 || m.value > 125 ? 0 : 0.3;
  if (m.isYear) return 0.05; // "in 1948" is rarely the count, price or size asked for
  if (m.isWord && kind !== "count") return 0.1;
  switch (kind) {
    case "money":
      return m.isMoney ? 2 : m.isPercent ? 0.1 : 0.4;
    case "percent":
      return m.isPercent ? 2 : 0.2;
    case "measure":
      if (!m.unit) return m.isMoney || m.isPercent ? 0.1 : 0.4;
      if (!unitHint) return 2;
      return unitHint.includes(m.unit) ? 3 : 0.5;
    case "count":
      if (m.isWord) return 0.8;
      if (m.isMoney || m.isPercent) return 0.3;
      return m.unit ? 0.5 : 1;
  }
}

/** "a 21-year-old", "21 years old", "aged 21", "Robert Mugabe, 93, …": the number is someone's age. */
function statesAge(text: string, m: NumberMention): boolean {
  const after = text.slice(m.end, m.end + 12);
  const before = text.slice(Math.max(0, m.index - 8), m.index);
  // "50,000 years old": the number's unit already holds "years".
  if (/^years?$/i.test(m.unit ?? "") && /^(?:-| )old/i.test(after)) return true;
  return /^(?:-| )?years?(?:-| )old/i.test(after) || /\baged?\s+$/i.test(before) || (/\p{L}\s*,\s*$/u.test(before) && /^\s*,/.test(after));
}

/** How well a number in the text fits the field (0: not at all, 1 and more: a good fit). */
export function mentionFit(field: FieldQuery, m: NumberMention): number {
  return fit(
    numberKind(field),
    m,
    UNIT_GROUPS.find((g) => field.words.some((w) => g.includes(w))),
  );
}

/**
 * The field's number: the best fitting, closest number in the best
 * sentences. `anchored` evidence (an item's own stretch of text) prefers the
 * first number in it instead of the one nearest the field's words.
 */
const CLAUSE_NEARNESS = 0.5;

export function extractNumber(field: FieldQuery, evidence: Evidence[], integer: boolean, anchored = false): Found<number> | null {
  const kind = numberKind(field);
  const unitHint = UNIT_GROUPS.find((g) => field.words.some((w) => g.includes(w)));
  const scored: { value: number; score: number; evidence: Evidence }[] = [];
  for (const ev of evidence) {
    const dates = dateSpans(ev.text);
    const fieldWords = termSpans(ev.text, field.terms);
    // The clause's words place a number too, a little less surely: "cut the allergy risk" puts 80% beside "allergic".
    const clauseWords = termSpans(ev.text, field.clause ?? []);
    for (const m of numberMentions(ev.text)) {
      if (kind !== "year" && dates.some((d) => m.index >= d.index && m.index < d.end)) continue; // the 31 of "31 March"
      // "approximately 50,000 years old" is an age too, of a thing rather than a person.
      let f = kind === "age" && statesAge(ev.text, m) ? 2 : fit(kind, m, unitHint);
      if (f === 0) continue;
      if (ev.text.lastIndexOf("(", m.index) > ev.text.lastIndexOf(")", m.index)) f *= 0.5; // "(1,083 ft)": a conversion of the number before
      // Words across a semicolon speak of something else: "the average cost was $1,200; $700 of that went on food".
      const own = (spans: { index: number; end: number }[]) =>
        spans.filter((w) => !/;/.test(ev.text.slice(Math.min(w.end, m.end), Math.max(w.index, m.index))));
      const near = anchored
        ? 1 / (1 + m.index / 40)
        : Math.max(proximity(own(fieldWords), m), CLAUSE_NEARNESS * proximity(own(clauseWords), m));
      scored.push({ value: m.value, score: ev.score * f * near, evidence: ev });
    }
  }
  if (scored.length === 0) return null;
  scored.sort((a, b) => b.score - a.score);
  const value = scored[0]!.value;
  // "a rating of 4.5" has no integer answer; the next number along (a review count) is not the rating.
  if (integer && !Number.isInteger(value)) return null;
  // Every sentence among the candidates that states the same value supports it.
  const sentences = [
    ...new Set(scored.filter((s) => s.value === value && s.score >= scored[0]!.score * 0.3).map((s) => s.evidence.sentence)),
  ];
  return { value, sentences };
}

// Words that say what a yes/no field is about but rarely stand in the sentence that settles it.
const VERB_CUES = new Set(
  "supports support supported uses use offers offer allows allow provides provide includes include has have is are can does enabled available".split(
    " ",
  ),
);
// A field name's last word that states a verdict: a participle or an adjective ("confirmed", "profitable", "effective").
const ASSERTING = /^\p{L}{3,}(?:ed|able|ible|ive|ful)$/u;
const ANTONYMS: Record<string, string[]> = {
  public: ["private", "privately"],
  profit: ["lose", "loses", "losing", "loss", "losses"],
  free: ["paid", "commercial"],
  open: ["closed", "proprietary"],
  active: ["inactive", "defunct", "dissolved"],
  listed: ["delisted", "unlisted"],
  available: ["unavailable", "discontinued"],
  profitable: ["unprofitable", "loss", "losses", "lose", "loses", "losing"],
  online: ["offline"],
};

// Words a sentence settles a yes/no with in other words: "no impact on the operations" for affects_operations.
const EQUIVALENTS: Record<string, string[]> = {
  affect: ["impact", "impacts", "effect", "effects"],
  affects: ["impact", "impacts", "effect", "effects"],
  affected: ["impact", "impacted", "effect"],
  returned: ["back"],
  enabled: ["on", "active"],
};
const LIGHT_VERBS = /^(?:tried|try|used|use|allowed|got|had|seen|shown)$/;
// Advice is given in the imperative, seldom with the word: "Instead of hiring a DJ, use your iPod" settles hire_dj_recommended.
const ADVICE = /^(?:recommended|advised|advisable|suggested|needed|necessary|required|worth)$/;
// A pronoun in a sentence's opening words stands for a name in the sentence before ("…Covington was hit… . However, he returned").
const OPENING_PRONOUN = /^(?:\S+\s+){0,3}?(?:he|she|it|they)\s/iu;

/** The sentence's words that are a field word with "un" or "non" before it ("unencrypted" for encrypts). */
function unPrefixed(text: string, core: string[]): string[] {
  return [...text.matchAll(/\b(?:un|non-?)(\p{L}{4,})/giu)]
    .filter((m) => core.some((c) => c.length >= 4 && m[1]!.toLowerCase().startsWith(c.slice(0, Math.max(4, c.length - 2)))))
    .map((m) => m[0].toLowerCase());
}

/** The stretch around `at` up to the nearest clause break: where a "not" still applies. */
function clauseAround(text: string, at: number): { text: string; start: number } {
  // A clause about a person is its own: in "biased against devs who don’t speak English" the "don’t" is the devs’.
  const breaks = /[;:,]|\s(?:but|while|whereas|although|though|however|who|whose|aber|doch|mais|pero)\s/giu;
  let start = 0;
  let end = text.length;
  for (const m of text.matchAll(breaks)) {
    if (m.index < at) start = m.index + m[0].length;
    else {
      end = m.index;
      break;
    }
  }
  return { text: text.slice(start, end), start };
}

/** The field's yes/no: what the best sentences about its words (or their opposites) affirm. */
export function extractBoolean(
  field: FieldQuery,
  evidence: Evidence[],
  context: {
    mentioned: (term: string) => boolean;
    subject: string[];
    /** The sentence before one in its passage, where a pronoun's name is. */
    before?: (sentence: Evidence["sentence"]) => Evidence["sentence"] | null;
  },
): Found<boolean> | null {
  const leaf = field.leaf.filter((w) => !VERB_CUES.has(w));
  // "free_tier": "tier" appears nowhere, so "free" alone decides; a field none of whose words appear has no answer.
  const core = (leaf.length ? leaf : field.leaf).filter((w) => context.mentioned(w) || (EQUIVALENTS[w] ?? []).some(context.mentioned));
  const opposites = core.flatMap((w) => ANTONYMS[w] ?? []);
  if (core.length === 0) return null;
  // "re_release_confirmed": what is asserted is "confirmed"; if no source says it (or its opposite), nothing settles the field.
  const asserted = field.leaf[field.leaf.length - 1]!;
  if (
    ASSERTING.test(asserted) &&
    !ADVICE.test(asserted) &&
    !context.mentioned(asserted) &&
    !(ANTONYMS[asserted] ?? []).some(context.mentioned)
  )
    return null;
  const votes: { value: boolean; score: number; evidence: Evidence }[] = [];
  for (const ev of evidence.slice(0, 6)) {
    // Long field names ("survey_biased_against_non_english") are rarely all in one sentence: most of their words will do.
    // The name's last word is what is asserted ("re_release_confirmed", "sanctions_lifted"): it must be there.
    // The sentence's terms once: every field word below asks of them.
    const said = { text: ev.text, terms: ev.terms ?? termsOf(ev.text) };
    const says = (c: string) => hasTerm(said, [c, ...(EQUIVALENTS[c] ?? [])]);
    // The field's other words may be in the sentence before, for a pronoun to stand for; what is asserted may not.
    const prior = OPENING_PRONOUN.test(ev.text) ? context.before?.(ev.sentence) : null;
    const present = core.filter((c, i) => says(c) || (prior && i < core.length - 1 && hasTerm(prior, [c]))).length;
    // A light verb ("virtual_keyboard_tried") may be worded otherwise ("wasn't allowed to use the virtual keyboard").
    const last = core[core.length - 1]!;
    const settled = says(last) || ((LIGHT_VERBS.test(last) || ADVICE.test(last)) && core.length > 1 && present === core.length - 1);
    const direct = present >= Math.max(1, Math.ceil(core.length * 0.6)) && settled;
    // "leaves files unencrypted" is the opposite of encrypts.
    const undone = unPrefixed(ev.text, core);
    const opposite = !direct && (opposites.some((a) => hasTerm(said, [a])) || undone.length > 0);
    if (!direct && !opposite) continue;
    // The clause that counts is the one holding what is asserted: the field's verdict word, or else its last
    // ("…wife appears to back her, though she has offered no formal endorsement" for wife_formally_endorsed).
    const verdict = [...core].reverse().find((c) => ASSERTING.test(c) && says(c)) ?? (says(last) ? last : undefined);
    const assertedAt = verdict ? termOffsets(ev.text, [verdict, ...(EQUIVALENTS[verdict] ?? [])]) : [];
    const at =
      (direct && assertedAt.length
        ? assertedAt
        : termOffsets(ev.text, direct ? core.filter(says).flatMap((c) => [c, ...(EQUIVALENTS[c] ?? [])]) : [...opposites, ...undone]))[0] ??
      0;
    const { text: clause, start } = clauseAround(ev.text, at);
    // Only who stands before the field's word is who the clause is about: "its rival Cirrus is open source", not "it runs on Linux".
    if (aboutAnother(ev.text, ev.text.slice(start, at), clause, context.subject)) continue;
    // "files are unencrypted" names the files and undoes the field's verb in one.
    const negated = isNegated(clause) !== (direct && undone.some((u) => clause.toLowerCase().includes(u)));
    votes.push({ value: direct ? !negated : negated, score: ev.score, evidence: ev });
  }
  if (votes.length === 0) return null;
  const weight = (v: boolean) => votes.filter((x) => x.value === v).reduce((s, x) => s + x.score, 0);
  // The best sentence decides unless the others clearly outweigh it.
  const value = weight(!votes[0]!.value) > 2 * weight(votes[0]!.value) ? !votes[0]!.value : votes[0]!.value;
  return {
    value,
    sentences: [
      ...new Set(
        votes
          .filter((v) => v.value === value)
          .slice(0, 3)
          .map((v) => v.evidence.sentence),
      ),
    ],
  };
}

/**
 * "Unlike Nimbus DB, its rival Cirrus is open source": the clause that holds
 * the field's words names someone else before them, while the subject stands
 * outside it. "The United States plans to lift sanctions on Sudan" is about
 * Sudan: the subject is named in the clause itself.
 */
function aboutAnother(sentence: string, before: string, clause: string, subject: string[]): boolean {
  if (subject.length === 0) return false;
  // "I" is the writer, not another party.
  const names = (text: string) =>
    nameSpans(text, 1)
      .filter((s) => s.text !== "I")
      .map((s) => words(s.text));
  const isSubject = (name: string[]) => namesSubjectWord(name, subject);
  const inClause = names(before);
  return inClause.length > 0 && !names(clause).some(isSubject) && names(sentence).some(isSubject);
}

/** Whether the field's name says its value is a quantity ("cost", "height", "growth_percent"), whatever type it is given. */
export function namesQuantity(field: FieldQuery): boolean {
  return numberKind(field) !== "count";
}

/**
 * A quantity asked for as text ("cost": "42 million euros"): the number
 * extractNumber would choose, as the sources write it, unit and currency included.
 */
export function extractQuantityText(field: FieldQuery, evidence: Evidence[]): Found<string> | null {
  const found = extractNumber(field, evidence, false);
  if (!found) return null;
  for (const sentence of found.sentences) {
    const mention = numberMentions(sentence.text).find((m) => m.value === found.value);
    if (mention) return { value: mention.text, sentences: [sentence] };
  }
  return null;
}
