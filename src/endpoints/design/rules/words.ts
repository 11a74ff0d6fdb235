/**
 * The vocabulary the rule-based designer reads prompts with: how a phrase
 * becomes a snake_case name, when a noun is plural, and which words say a
 * value is a number, a count, a yes/no or a list. Kept in one place so the
 * input rules and the field rules agree on what "year" or "price" means.
 */

/** ASCII letters for names: umlauts the German way (ü → ue), other accents dropped. */
export function ascii(text: string): string {
  return text
    .toLowerCase()
    .replace(/ä/g, "ae")
    .replace(/ö/g, "oe")
    .replace(/ü/g, "ue")
    .replace(/ß/g, "ss")
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "");
}

/** Words of a phrase as name parts: "P/E ratio" → ["pe", "ratio"], "52-week high" → ["52", "week", "high"]. */
export function nameParts(text: string): string[] {
  return ascii(text)
    .replace(/\b([a-z])\/([a-z])\b/g, "$1$2")
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** "Company Name" → "company_name"; at most `max` words so names stay readable. */
export function snakeName(words: string[], max = 6): string {
  return words.flatMap(nameParts).slice(0, max).join("_").slice(0, 64);
}

export const INPUT_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const RESERVED_INPUTS = new Set(["max_results"]);

// Words that end in s without being plurals of a countable thing.
const NOT_PLURAL = new Set(
  "news series species status address business headquarters hours analysis basis thesis physics economics politics ethics mathematics gas bus campus canvas atlas lens its this his has was is yes bias alias diagnosis process success access class glass boss loss sales earnings revenues details specs contents coordinates surroundings whereabouts".split(
    " ",
  ),
);

export function isPlural(word: string): boolean {
  if (word.length < 3 || NOT_PLURAL.has(word)) return false;
  return /s$/.test(word) && !/(ss|us|is|ics)$/.test(word);
}

export function singular(word: string): string {
  if (!isPlural(word)) return word;
  if (/ies$/.test(word)) return word.slice(0, -3) + "y";
  if (/(ches|shes|sses|xes|zes)$/.test(word)) return word.slice(0, -2);
  return word.slice(0, -1);
}

/** "company" → "companies", "closing_price" → "closing_prices": the last word of a name in the plural. */
export function plural(word: string): string {
  const name = nameParts(word).join("_");
  return /[^aeiou]y$/.test(name) ? `${name.slice(0, -1)}ies` : /(s|x|ch|sh)$/.test(name) ? `${name}es` : `${name}s`;
}

// Values that are counted, so whole numbers.
export const COUNT_WORDS = new Set(
  "year years founded founding established incorporated count population employees employee headcount age inhabitants residents citations followers subscribers downloads visitors seats rooms pages episodes seasons stars".split(
    " ",
  ),
);
// Values that are measured, so any number.
export const MEASURE_WORDS = new Set(
  (
    "price prices cost costs revenue revenues salary salaries amount rating ratings score scores percentage percent height weight length width depth distance area rent fee fees income profit profits valuation cap capitalization gdp budget temperature elevation altitude ratio rate yield margin growth calories worth volume speed high low index debt tax wage wages earnings sales turnover spending funding inflation share capacity " +
    "fare fares tuition size chance probability likelihood odds duration lifespan expectancy mileage consumption emissions latitude longitude " +
    // German, French and Spanish stems the examples use.
    "preis kosten umsatz gehalt bewertung prix cout salaire note precio costo coste ingresos salario calificacion puntuacion"
  ).split(" "),
);
const COUNT_WORDS_ABROAD = new Set("anzahl einwohner annee nombre ano numero poblacion".split(" "));
// German compounds carry their type at the end: Gründungsjahr, Einwohnerzahl, Ticketpreis.
const COUNT_SUFFIXES = ["jahr", "zahl"];
const MEASURE_SUFFIXES = ["preis", "kosten"];
// The last word of these names makes the value text even when a number word precedes it.
const TEXT_HEADS = new Set("date day time period range season name names title code id symbol url description list text month".split(" "));
const MEASURED_LIVES = new Set("battery shelf half service useful".split(" "));
export const LIST_WORDS = new Set("tags keywords categories".split(" "));
// A "number" that identifies rather than counts.
const IDENTIFIER_NUMBERS = new Set(
  "phone serial account order tracking model part registration license licence vat tax flight id isbn reference".split(" "),
);

export type Scalar = "string" | "number" | "integer" | "boolean";

/** The type a field's name words imply, ignoring lists. */
export function scalarType(words: string[]): Scalar {
  const last = words[words.length - 1] ?? "";
  const first = words[0] ?? "";
  if (["is", "has", "does", "can", "whether"].includes(first)) return "boolean";
  if (words.join(" ") === "publicly traded" || last === "open" || words.join(" ").endsWith("open now")) return "boolean";
  if (first === "number" && words[1] === "of") return "integer";
  if (TEXT_HEADS.has(last)) return "string";
  // "battery life", "shelf life": a life that is measured, in hours or months; a "personal life" is not.
  if (last === "life" && MEASURED_LIVES.has(words[words.length - 2] ?? "")) return "number";
  if (words.some((w) => MEASURE_WORDS.has(w) || MEASURE_SUFFIXES.some((s) => w.endsWith(s)))) return "number";
  if (words.some((w) => COUNT_WORDS.has(w) || COUNT_WORDS_ABROAD.has(w) || COUNT_SUFFIXES.some((s) => w.endsWith(s)))) return "integer";
  if (last === "number" && !IDENTIFIER_NUMBERS.has(words[words.length - 2] ?? "")) return "integer";
  return "string";
}

// Input names: the brief's cue words, and a few more a caller passes as numbers.
const NUMBER_INPUT_WORDS = new Set("number year count amount price limit budget quantity age num max min days months years".split(" "));
const BOOLEAN_INPUT_FIRST = new Set("is has include includes whether should only".split(" "));
const TEXT_INPUT_HEADS = new Set("name code id symbol url date title range description text".split(" "));

/** An input's type from its name: `start_year` is a number, `include_reviews` a boolean. */
export function inputType(name: string): "string" | "number" | "boolean" {
  const words = name.split("_").filter(Boolean);
  const last = words[words.length - 1] ?? "";
  if (BOOLEAN_INPUT_FIRST.has(words[0] ?? "") || words.includes("whether")) return "boolean";
  if (TEXT_INPUT_HEADS.has(last)) return "string";
  if (last === "number" && IDENTIFIER_NUMBERS.has(words[words.length - 2] ?? "")) return "string";
  return words.some((w) => NUMBER_INPUT_WORDS.has(w)) ? "number" : "string";
}

/** A title of at most 60 characters, cut at a word. */
export function shortTitle(name: string, max = 60): string {
  const clean = name.replace(/\s+/g, " ").trim();
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, max + 1).lastIndexOf(" ");
  return clean.slice(0, cut > 20 ? cut : max).replace(/[\s,;:]+$/, "");
}

/** Sentence case for titles: "city tourist attractions" → "City tourist attractions". */
export function sentenceCase(text: string): string {
  const trimmed = text.trim();
  return trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
}
