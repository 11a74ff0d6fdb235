/**
 * One asked-for fact ("its founding year", "whether it is publicly traded",
 * "how many employees it has", "the top 10 tourist attractions") as a field:
 * a snake_case name and a type. The name keeps the prompt's own words, minus
 * articles, pronouns and the subject itself, so a caller recognises it.
 */
import type { OutputShape } from "../../../research/output-format.ts";
import { isStopword } from "../../../terms.ts";
import type { Field, Place } from "./field.ts";
import { isPlural, LIST_WORDS, nameParts, scalarType, singular, type Scalar } from "./words.ts";
import { asSeries, periodOf } from "./series.ts";
import { AUX, yesNoName } from "./yes-no.ts";

const DROP = new Set(
  (
    "the a an its their his her our your my it they them he she this that these those there here is are was were be been being do does did has have had will would should can could please just very exactly roughly approximately of " +
    "der die das den dem des ein eine einen einem einer le la les un une du de del el los las lo al l d " +
    // Question words of the other languages, which open an item as "what is" does.
    "quel quelle quels quelles est sont qui wer ist sind welche welcher welches cual cuales es son quien"
  ).split(" "),
);
// A prepositional phrase after the fact narrows it; the name stops before it.
const CUT = new Set(
  "in on at for from near during since within across around among over under between after before about located that which who whose where because using via according based with than like".split(
    " ",
  ),
);
// Participles that start a filter after a plural: "articles published after 2020".
const FILTERING = new Set("published released posted written issued sold made listed".split(" "));
const QUALIFIERS =
  /\b(?:if (?:available|any|known|possible|applicable|relevant)|where (?:available|applicable)|when available|as (?:json|a list|a table|text|a string|a number|well)|in (?:json|a table|a list|detail|details|short)|e\.g\..*$|etc\.?|respectively|or not)\b|\([^)]*\)|\[[^\]]*\]|["“”‘`]/gu;
const UNITS = new Map(
  Object.entries({
    minutes: "minutes",
    hours: "hours",
    seconds: "seconds",
    days: "days",
    km: "km",
    kilometers: "km",
    kilometres: "km",
    miles: "miles",
    meters: "meters",
    metres: "meters",
    kg: "kg",
    kilograms: "kg",
    usd: "usd",
    dollars: "usd",
    eur: "eur",
    euros: "eur",
    gbp: "gbp",
    percent: "percent",
    "%": "percent",
    celsius: "celsius",
    grams: "grams",
    pounds: "pounds",
    ounces: "ounces",
    inches: "inches",
    feet: "feet",
    liters: "liters",
    litres: "liters",
    gb: "gb",
    mah: "mah",
    watts: "watts",
    fahrenheit: "fahrenheit",
    millions: "millions",
    billions: "billions",
  }),
);
const UNIT = new RegExp(`\\b(?:in|per) (?:us )?(${[...UNITS.keys()].join("|")})(?![\\p{L}])`, "u");
// Words that say nothing about which fact is wanted.
const GENERIC = new Set(
  "info information details detail data result results answer json output everything anything something stuff topic subject thing things sources source citations references more other overview thoroughly carefully briefly concisely accurately".split(
    " ",
  ),
);
// Plurals that stay lists inside a row: a paper has several authors, a recipe several steps.
const MANY_PER_ROW = new Set(
  "authors ingredients steps features members genres skills amenities products languages tags keywords categories awards ingredients instructions services brands".split(
    " ",
  ),
);
// Maps, not objects: a prompt's words must never reach Object.prototype ("constructor", "toString").
const WHO_VERBS = new Map(
  Object.entries({
    founded: "founder",
    wrote: "author",
    written: "author",
    directed: "director",
    invented: "inventor",
    owns: "owner",
    leads: "leader",
    runs: "leader",
    created: "creator",
    designed: "designer",
    won: "winner",
    wins: "winner",
  }),
);
// Prepositions that open an item without being part of the fact: "by revenue", "on battery life".
const LEADING = new Set("by on regarding across concerning like versus vs against".split(" "));
// The speaker, not a fact: "I give you", "we mostly look at", "my manager keeps…", "so the list changes…".
const SPEAKERS = new Set("i you we let my our so but because although though while then however honestly basically".split(" "));
// Nouns that name a group of people: a list even though singular.
const GROUPS = new Set("cast crew lineup roster".split(" "));
// An item that starts with these asks for nothing in particular: "something interesting".
const VAGUE = new Set("something anything everything stuff things more one two three four five ten".split(" "));
// Words that open an instruction, not a fact: "counting subsidiaries only if…", "up to 10 rows", "sorted by name".
const INSTRUCTIONS = new Set(
  "up only limited sorted sort ordered order ranked counting using excluding ignoring focusing considering taking making assuming keeping avoiding preferring prioritizing prioritising treating following".split(
    " ",
  ),
);
const VERBS = new Set(
  "work works worked live lives lived visit visits use uses used exist exists attend attended get gets play plays".split(" "),
);

// "the five largest cities", "the top 10 papers": a count or quantifier before a noun asks for a list of them.
const NUMBER_WORDS = new Set("two three four five six seven eight nine ten eleven twelve fifteen twenty fifty hundred dozen".split(" "));
const HOW_MANY = new Set(["all", "some", "several", "few", "top", "many", ...NUMBER_WORDS]);

type Mode = "plain" | "boolean" | "count" | "amount" | "who" | "when" | "where";

const QUESTION_WORDS = new Map<string, Mode>(
  Object.entries({
    whether: "boolean",
    if: "boolean",
    who: "who",
    when: "when",
    where: "where",
    what: "plain",
    which: "plain",
    whats: "plain",
  }) as [string, Mode][],
);
const LIST_OF = /^\s*(?:(?:the|a|an)\s+)?(?:list|lists|names)\s+of\s+(?:(?:the|all)\s+)?/u;

const ofSubjects = new WeakMap<Set<string>, RegExp>();

/** "of the company" when company is the subject: it says whose fact, which the input already says. */
function ofSubject(subject: Set<string>): RegExp {
  let re = ofSubjects.get(subject);
  if (!re) {
    const words = [...subject].filter((w) => /^[a-z0-9]+$/.test(w));
    re = words.length ? new RegExp(`\\bof (?:the |this |that |each |its |their )?(?:${words.join("|")})\\b`, "g") : /(?!)/g;
    ofSubjects.set(subject, re);
  }
  return re;
}

/** The field an item asks for, or null when it names nothing (a pronoun, "the results", "JSON"). */
export function readItem(raw: string, subject: Set<string>, place: Place): Field | null {
  let text = raw
    .replace(QUALIFIERS, " ")
    .replace(/(?<![\p{L}])[ldj]['’](?=\p{L})/gu, "")
    .replace(/\b(?:he or she|she or he)\b/g, "they")
    .replace(/\b(?:his or her|her or his)\b/g, "their");
  let unit = "";
  const unitMatch = UNIT.exec(text);
  if (unitMatch) {
    unit = UNITS.get(unitMatch[1]!)!;
    text = text.slice(0, unitMatch.index) + text.slice(unitMatch.index + unitMatch[0].length);
  }
  // Only a top-level value is a series: in a row, "for the last 5 years" narrows the row's value.
  const period = place === "top" ? periodOf(text) : null;
  if (period) text = text.slice(0, period.start) + text.slice(period.end);
  let collection = LIST_OF.test(text);
  text = text.replace(LIST_OF, " ");
  // "the company's revenue": the subject's possessive goes, another noun's stays as a word.
  text = text.replace(/([\p{L}\p{N}]+)['’]s?(?![\p{L}])/gu, (_, w: string) => (subject.has(w) || DROP.has(w) ? " " : `${w} `));
  text = text.replace(ofSubject(subject), " ");
  // "X of the Y" names X in the context of Y; "number of employees" keeps its "of".
  text = text
    .replace(/\bof (?:the|a|an|its|their|it|them)\b.*$/u, " ")
    .replace(/\bof\b/g, "of_")
    .replace(/\bknown for\b/g, "known_for");
  let words = text.split(/[^\p{L}\p{N}_%/-]+/u).filter(Boolean);

  let mode: Mode = "plain";
  let asked = false;
  while (words.length) {
    const [w0, w1] = [words[0]!, words[1] ?? ""];
    if (SPEAKERS.has(w0) || INSTRUCTIONS.has(w0)) return null;
    if (QUESTION_WORDS.has(w0)) [mode, asked] = [QUESTION_WORDS.get(w0)!, true];
    else if (w0 === "how" && (w1 === "many" || w1 === "much")) {
      [mode, asked] = [w1 === "many" ? "count" : "amount", true];
      words = words.slice(1);
    } else if (AUX.has(w0) && !asked && words.length > 1) {
      // "is it open", "does it offer an API": a yes/no question; the verb stays to name the field.
      [mode, asked] = ["boolean", true];
      break;
    } else if (LEADING.has(w0) && !asked) {
      /* "compare them by revenue": the preposition only introduces the fact */
    } else if (w0 === "about") {
      // "about its history" asks for history; "about quantum computing" names a topic, not a field.
      if (!["its", "their", "his", "her"].includes(w1)) return null;
    } else if (HOW_MANY.has(w0) || /^\d+$/.test(w0)) collection = true;
    else if (!DROP.has(w0) || AUX.has(w0)) break;
    words = words.slice(1);
  }
  let verb = "";
  if (mode === "boolean") ({ verb, words } = yesNoName(words, subject));
  else {
    const cut = words.findIndex(
      (w, i) => i > 0 && (CUT.has(w) || (mode !== "plain" && VERBS.has(w)) || (FILTERING.has(w) && isPlural(words[i - 1]!))),
    );
    if (cut > 0) words = words.slice(0, cut);
    // "which airlines fly from…", "what programming languages does it use": a which/what question asks
    // for the plural it opens with; the verb after it says what they do.
    const things = mode === "plain" && asked ? words.findIndex((w) => isPlural(w)) : -1;
    const next = words[things + 1];
    if (things >= 0 && things < 3 && next && (!isPlural(next) || AUX.has(next))) words = words.slice(0, things + 1);
    // "the next five matches": the count says how many, which is the caller's max_results; the name keeps the rest.
    const count = words.findIndex((w, i) => i > 0 && NUMBER_WORDS.has(w) && isPlural(words[i + 1] ?? ""));
    if (count > 0) [words, collection] = [words.filter((_, i) => i !== count), true];
  }
  words = words.filter((w) => !DROP.has(w) && !(mode !== "plain" && subject.has(w))).map((w) => (w === "of_" ? "of" : w));
  while (words.length && (words[0] === "of" || words[words.length - 1] === "of" || CUT.has(words[words.length - 1]!)))
    words = words[0] === "of" ? words.slice(1) : words.slice(0, -1);
  const parts = words.flatMap(nameParts);
  if (!parts.length || parts.every((w) => GENERIC.has(w) || isStopword(w) || /^\d+$/.test(w)) || VAGUE.has(parts[0]!)) return null;
  const field = shape(verb ? [verb, ...parts] : parts, mode, collection, unit, place);
  // "papers published in the last 5 years" is a list already: the period filters it.
  return period && typeof field.shape === "string" && mode !== "boolean" ? asSeries(field, period) : field;
}

function shape(parts: string[], mode: Mode, collection: boolean, unit: string, place: Place): Field {
  let words = parts;
  let type: Scalar | null = null;
  if (mode === "boolean") type = "boolean";
  else if (mode === "count") {
    words = ["number", "of", ...words];
    type = "integer";
  } else if (mode === "amount") type = "number";
  // "who won the World Cup" asks for the winner; "who the CEO is" for the CEO.
  else if (mode === "who") words = WHO_VERBS.has(words[0]!) ? [WHO_VERBS.get(words[0]!)!] : words;
  else if (mode === "when")
    words = words.some((w) => ["founded", "established", "incorporated", "year"].includes(w))
      ? ["year", ...words.filter((w) => w !== "year")]
      : [...words, "date"];
  else if (mode === "where")
    words =
      words.join(" ") === "born"
        ? ["place", "of", "birth"]
        : /(location|address|place|city|country)$/.test(words.join(" "))
          ? words
          : [...words, "location"];
  // A bare "founded" asks for the year; a bare "employees" for how many.
  if (mode === "plain" && words.length === 1 && ["founded", "established", "incorporated"].includes(words[0]!)) words = ["year", words[0]!];
  if (mode === "plain" && words.join(" ") === "employees") words = ["number", "of", "employees"];
  if (unit) {
    words = [...words, unit];
    type = "number";
  }
  words = words.slice(0, 6);
  const last = words[words.length - 1]!;
  const field = (value: OutputShape, list: boolean, name = words): Field => ({
    name: name.join("_").slice(0, 64),
    shape: value,
    collection: list,
    head: singular(name[name.length - 1]!),
  });
  if (type) return field(type, false);
  if (words[0] === "number" && words[1] === "of") return field("integer", false);
  if (LIST_WORDS.has(last) || GROUPS.has(last)) return field(["string"], true);
  if (collection || isPlural(last)) {
    const single = [...words.slice(0, -1), singular(last)];
    const singleType = scalarType(single);
    // "ticket prices" at the top is one price; "authors" in a row stays a list, "prices" in a row is each row's price.
    if (place === "row" && !MANY_PER_ROW.has(last)) return field(singleType, false, single);
    if (!collection && (singleType === "number" || singleType === "integer")) return field(singleType, false, single);
    return field(["string"], true);
  }
  return field(scalarType(words), false);
}
