/**
 * The subjects a prompt is about, read from the phrases people use to say
 * "this varies per call": "given a company name", "for a city", "of a
 * country", "by ticker symbol", "between two dates", "in a given year", and
 * the German, French and Spanish "für ein / pour une / para un" forms. Each
 * subject becomes an input; its span is remembered so the field rules do not
 * read "of a country" as something to find.
 */
import { isStopword } from "../../../terms.ts";
import { IDENTIFIERS, inputWords, nounPhrase, STOP, titleOf } from "./noun-phrase.ts";
import { nameParts, singular, snakeName } from "./words.ts";

export interface Subject {
  name: string;
  /** Words naming what the call is about, for the title: ["research", "paper"]. */
  title: string[];
  start: number;
  end: number;
  optional: boolean;
  /** One of the two subjects of "compare two X" or "between two X". */
  pair: boolean;
}

const L = "(?<![\\p{L}\\p{N}_])";
// What "in a X" names as a parameter: places and periods, and the units an answer is given in.
const PLACES = new Set(
  "city country region state province town neighborhood neighbourhood area location place year month week market industry sector language county district currency unit".split(
    " ",
  ),
);
// What opens a question about "a X": "is a", "does a", "whether a", "if a", "what awards has a".
const YES_NO_OPENER = /(?<![\p{L}])(?:is|are|does|do|did|can|has|have|was|whether|if)\s+(?:a|an|any)\s+$/u;
// Identifiers that name their subject alone: "by ISBN" needs no "book_" in front.
const SPECIFIC_IDS = new Set("doi isbn ticker url domain email username handle sku upc barcode website".split(" "));

class SubjectReader {
  readonly found: Subject[] = [];
  constructor(private readonly text: string) {}

  private free(start: number, end: number): boolean {
    return this.found.every((s) => end <= s.start || start >= s.end);
  }

  add(subject: Omit<Subject, "pair" | "optional"> & Partial<Subject>): boolean {
    if (!subject.name || !this.free(subject.start, subject.end)) return false;
    const before = this.text.slice(Math.max(0, subject.start - 24), subject.start);
    const after = this.text.slice(subject.end, subject.end + 24);
    // "optionally a country" marks the country; "a city, optionally a country" leaves the city required.
    const optional =
      subject.optional || /optional(ly)?\s*,?\s*$/.test(before) || /^\s*(\(\s*optional|,?\s*optional\b(?!\s+(a|an|the)\b))/.test(after);
    this.found.push({ pair: false, ...subject, optional });
    return true;
  }

  /** "X of a Y" where X identifies Y ("the name of a company") is one subject, Y's identifier. */
  phrase(start: number, from: number, max = 3): void {
    const phrase = nounPhrase(this.text, from, max);
    if (!phrase) return;
    let { words, end } = phrase;
    let title = titleOf(words);
    const of = /\s+of\s+(?:a|an|any|the|one)\s+/y;
    of.lastIndex = end;
    const last = words[words.length - 1]!;
    if (IDENTIFIERS.has(last) && of.exec(this.text)) {
      const owner = nounPhrase(this.text, of.lastIndex);
      if (owner) {
        title = titleOf(owner.words);
        words = SPECIFIC_IDS.has(last) || words.length > 1 ? words : [owner.words[owner.words.length - 1]!, last];
        end = owner.end;
      }
    }
    if (this.add({ name: snakeName(inputWords(words), 4), title, start, end, optional: phrase.optional })) this.continuation(end, max);
  }

  /**
   * The subject of a yes/no question: one noun, and an identifier after it ("a domain name"), because the
   * predicate follows at once ("a website is down", "a restaurant offer vegan options").
   */
  predicateSubject(start: number): void {
    const from = start + /^(?:a|an|any) /.exec(this.text.slice(start))![0].length;
    const one = nounPhrase(this.text, from, 1);
    const two = nounPhrase(this.text, from, 2);
    const phrase = two && two.words.length === 2 && IDENTIFIERS.has(two.words[1]!) ? two : one;
    if (phrase) this.add({ name: snakeName(inputWords(phrase.words), 4), title: titleOf(phrase.words), start, end: phrase.end });
  }

  /** ", optionally a country, and a currency": more subjects listed after the first. */
  private continuation(from: number, max: number): void {
    const more =
      /\s*(?:,\s*)?(?:(?:and|or|und|oder|et|ou|y|o)\s+)?(?:(optionally|optional|optionnellement|opcionalmente)\s+)?(?:a|an|one|ein|eine|einen|un|une|una)\s+/uy;
    more.lastIndex = from;
    const m = more.exec(this.text);
    if (!m) return;
    const phrase = nounPhrase(this.text, more.lastIndex, max);
    if (!phrase) return;
    const subject = {
      name: snakeName(inputWords(phrase.words), 4),
      title: titleOf(phrase.words),
      start: from,
      end: phrase.end,
      optional: phrase.optional || Boolean(m[1]),
    };
    if (this.add(subject)) this.continuation(phrase.end, max);
  }

  /**
   * Two subjects of one kind. A range is its start and end; the sides of a
   * comparison are A and B, as people label them ("laptop_a"), since neither
   * comes first; other pairs ("the distance between two cities") keep their order.
   */
  pair(start: number, end: number, word: string, title: string[], compared: boolean): void {
    const head = snakeName([word], 3);
    const range = head === "date" || head === "year" || head === "day" || head === "month";
    const [a, b] = range ? [`start_${head}`, `end_${head}`] : compared ? [`${head}_a`, `${head}_b`] : [`first_${head}`, `second_${head}`];
    if (!this.free(start, end)) return;
    this.found.push({ name: a, title: range ? [] : title, start, end, optional: false, pair: !range });
    this.found.push({ name: b, title: range ? [] : title, start: end, end, optional: false, pair: !range });
  }
}

function* matches(text: string, source: string): Generator<RegExpExecArray> {
  const re = new RegExp(source, "gu");
  for (let m = re.exec(text); m; m = re.exec(text)) yield m;
}

/** The subjects of a lowercased prompt, in the order the prompt names them. */
export function findSubjects(text: string): Subject[] {
  const reader = new SubjectReader(text);
  // "Company profile: CEO, revenue": a heading names the subject.
  const heading = /^\s*(\p{L}+) (?:profile|overview|lookup|report|info|information|details|facts|fact sheet|card|data)(?=\s*:)/u.exec(text);
  if (heading && !isStopword(heading[1]!) && !STOP.has(heading[1]!))
    reader.add({ name: snakeName([heading[1]!]), title: [heading[1]!], start: heading.index, end: heading[0].length });
  for (const m of matches(text, `${L}between (?:a|the) start date and (?:an|the) end date`))
    reader.pair(m.index, m.index + m[0].length, "date", [], false);
  // The span starts at "two": "compare" stays in the text, as the verb that asks for the facts.
  for (const m of matches(text, `${L}(compare|comparing|between|of|for|about|versus|given) two `)) {
    const phrase = nounPhrase(text, m.index + m[0].length);
    if (phrase)
      reader.pair(
        m.index + m[0].length - 4,
        phrase.end,
        singular(phrase.words[phrase.words.length - 1]!),
        phrase.words.slice(0, -1).concat(singular(phrase.words[phrase.words.length - 1]!)),
        /^(compar|versus)/.test(m[1]!),
      );
  }
  for (const m of matches(text, `${L}compare (?:a|an) `)) {
    const x = nounPhrase(text, m.index + m[0].length);
    if (!x) continue;
    const link = /\s+(?:and|with|to|against|versus|vs\.?)\s+(?:a|an|another)\b/y;
    link.lastIndex = x.end;
    if (!link.exec(text)) continue;
    const y = nounPhrase(text, link.lastIndex);
    const [nx, ny] = [snakeName(x.words, 3), y ? snakeName(y.words, 3) : ""];
    const start = m.index + "compare ".length;
    if (!y || nx === ny) reader.pair(start, y?.end ?? link.lastIndex, nx, x.words, true);
    else if (reader.add({ name: nx, title: x.words, start, end: x.end, pair: true }))
      reader.add({ name: ny, title: y.words, start: x.end, end: y.end, pair: true });
  }
  // "a stock by ticker symbol", "by ISBN": the identifier is the input, the thing before it the title.
  for (const m of matches(text, `${L}by (?:(?:its|their|the|a|an) )?`)) {
    const id = nounPhrase(text, m.index + m[0].length);
    const last = id?.words[id.words.length - 1];
    if (!id || !last || !IDENTIFIERS.has(last)) continue;
    const owner = /(?:^|\s)(?:(?:a|an|any)\s+([\p{L}\p{N}-]+(?:\s+[\p{L}\p{N}-]+)?)|(\p{L}+s))\s+$/u.exec(
      text.slice(Math.max(0, m.index - 40), m.index),
    );
    // "a stock by ticker symbol", or a plural without an article: "books by ISBN".
    const ownerWords = owner ? (owner[1] ?? singular(owner[2]!)).split(/\s+/).filter((w) => !isStopword(w) && !STOP.has(w)) : [];
    const specific = SPECIFIC_IDS.has(last) || id.words.length > 1;
    // "sorted by name" has no owner: a generic identifier needs "a person by name" to be an input.
    if (!specific && !ownerWords.length) continue;
    const words = specific ? id.words : [ownerWords[ownerWords.length - 1]!, last];
    const start = ownerWords.length ? m.index - owner![0].trimStart().length : m.index;
    reader.add({ name: snakeName(words, 4), title: ownerWords.length ? ownerWords : titleOf(id.words), start, end: id.end });
  }
  for (const m of matches(
    text,
    `${L}(?:given|étant donnée?|etant donnee?|gegeben|dado|dada)(?: (?:a|an|the|any|one|some|un|une|ein|eine|einen|una))? `,
  )) {
    // "Is a given domain name available?": the subject of a yes/no question ends before its predicate (below).
    if (YES_NO_OPENER.test(text.slice(Math.max(0, m.index - 24), m.index))) continue;
    reader.phrase(m.index, m.index + m[0].length);
  }
  // "Takes a company name and returns…": an endpoint described by what it is given. Only the third person:
  // the imperative "take a look" is an idiom, not an input.
  for (const m of matches(text, `${L}(?:takes|accepts|receives|expects)(?: (?:as input|as an input|in))? (?:a|an|any|one) `))
    reader.phrase(m.index, m.index + m[0].length);
  for (const m of matches(text, `${L}(?:for|about|of|regarding|concerning) (?:a|an|any|each|every|one|some|the given|the specified) `)) {
    const phrase = nounPhrase(text, m.index + m[0].length);
    // "for each attraction" after "list the attractions" describes the list's items, not an input.
    if (
      phrase &&
      /(?:each|every) $/.test(m[0]) &&
      new RegExp(`${L}${phrase.words[0]}(?:s|es)?(?![\\p{L}])`, "u").test(text.slice(0, m.index))
    )
      continue;
    // "for each country in a region": the region is the input, the countries are rows of the answer.
    if (phrase && /(?:each|every) $/.test(m[0]) && /^\s+in\s+(?:a|an|any|the given|each)\s/.test(text.slice(phrase.end, phrase.end + 20)))
      continue;
    reader.phrase(m.index, m.index + m[0].length);
  }
  for (const m of matches(text, `${L}in (a given|any|a specific|a particular|each|every|a|an) `)) {
    const phrase = nounPhrase(text, m.index + m[0].length);
    if (phrase && (m[1] !== "a" && m[1] !== "an" ? true : PLACES.has(phrase.words[phrase.words.length - 1]!)))
      reader.phrase(m.index, m.index + m[0].length);
  }
  const foreign = [
    `${L}(?:für|fuer|über|ueber|zu) (?:ein|eine|einen|einem|einer|jede|jedes|jeden|jedem) `,
    `${L}(?:eines|einer) `,
    `${L}(?:pour|sur|étant donnée?|donnée?) (?:un|une|chaque|n'importe quelle?) `,
    `${L}d['’](?:un|une) `,
    `${L}(?:para|sobre|de) (?:un|una|cada|cualquier) `,
  ];
  for (const source of foreign) for (const m of matches(text, source)) reader.phrase(m.index, m.index + m[0].length, 1);
  // "Check if a website is down", "Does a restaurant offer vegan options?", "What awards has a film won?": when
  // nothing else names the subject, the thing a question is about does. The verb stays in the text, to ask it.
  if (!reader.found.length)
    for (const m of matches(text, `${L}(?:is|are|does|do|did|can|has|have|was|whether|if) (?=(?:a|an|any) )`))
      reader.predicateSubject(m.index + m[0].length);
  return reader.found.sort((a, b) => a.start - b.start || a.end - b.end);
}

/** The X of "for each X in a Y": the answer is a list of X, one row each. */
export function rowsOf(text: string): string | null {
  const m = new RegExp(`${L}(?:for|of) (?:each|every) (\\p{L}+) in (?:a|an|any|the given|each) `, "u").exec(text);
  return m ? m[1]! : null;
}

/** `{company}`, `{{start_year}}`, `{Company Name}`: a name between braces, not JSON like `{"a": 1}`. */
export const PLACEHOLDER = /\{\{?\s*([\p{L}_][\p{L}\p{N}_ .-]{0,59}?)\s*\}\}?/gu;

/** Placeholder names as inputs: "{Company Name}" → "company_name"; "" when nothing usable is left. */
export function placeholderName(raw: string): string {
  const name = snakeName(nameParts(raw), 6);
  return /^[a-z_]/.test(name) ? name : "";
}
