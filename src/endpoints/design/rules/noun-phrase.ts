/**
 * Reading the noun phrase that names a subject ("a given company name",
 * "einer Stadt"): where it ends, which of its words say what the call is
 * about, and the English word for the foreign-language subjects. Shared by
 * every subject form, so they all cut a phrase the same way.
 */
import { isStopword } from "../../../terms.ts";
import { ascii } from "./words.ts";

// Words that end a noun phrase: the verbs and connectives prompts put right after a subject.
export const STOP = new Set(
  (
    "find get return list extract give tell include including provide show identify determine collect gather retrieve fetch look compile output search summarize summarise describe explain want need please using use based along also then whose whether optionally default defaulting such like etc vs versus " +
    "returns gives lists finds provides fetches retrieves extracts tells gets checks check verify verifies takes accepts receives expects " +
    "finde finden gib nenne liste ermittle suche zeige liefere trouve trouver donne indique retourne renvoie cherche encuentra busca dame lista indica devuelve obten"
  ).split(" "),
);
// Adjectives that only say "the one you are given"; "optional" also makes the input optional.
const MODIFIERS = new Set("given specific particular certain single specified chosen selected provided user optional".split(" "));
// Heads that follow "for a", "of a" without being a subject: "for a while", "a list of".
const NOT_SUBJECT = new Set(
  "few lot number list couple total bit variety range maximum minimum summary description set table way time while moment result results short brief detailed json response answer new good better more dozen half quarter".split(
    " ",
  ),
);

// Identifiers that say what the subject is better than the word left after "symbol" goes: a ticker names a stock.
const TITLE_ALIASES = new Map(Object.entries({ ticker: "stock", isbn: "book", doi: "paper" }));
export const IDENTIFIERS = new Set(
  "name id identifier doi isbn url link ticker symbol code domain email username handle sku upc barcode website title".split(" "),
);
// The subjects of the foreign-language forms, named in English so inputs read the same everywhere.
// (A Map: a prompt's words must never reach Object.prototype's "constructor".)
const FOREIGN = new Map(
  Object.entries({
    unternehmen: "company",
    unternehmens: "company",
    firma: "company",
    stadt: "city",
    land: "country",
    landes: "country",
    produkt: "product",
    produkts: "product",
    jahr: "year",
    buch: "book",
    entreprise: "company",
    societe: "company",
    ville: "city",
    pays: "country",
    personne: "person",
    produit: "product",
    annee: "year",
    livre: "book",
    empresa: "company",
    compania: "company",
    ciudad: "city",
    pais: "country",
    persona: "person",
    producto: "product",
    ano: "year",
    libro: "book",
  }),
);

export interface Phrase {
  words: string[];
  end: number;
  optional: boolean;
}

const WORD = /\s*([\p{L}\p{N}][\p{L}\p{N}'’-]*)/uy;

/** The noun phrase starting at `from`: up to `max` words, ending at punctuation, a function word or a verb. */
export function nounPhrase(text: string, from: number, max = 3): Phrase | null {
  const words: string[] = [];
  let end = from;
  let optional = false;
  for (let guard = 0; words.length < max && guard < 8; guard++) {
    WORD.lastIndex = end;
    const m = WORD.exec(text);
    if (!m) break;
    const possessive = /['’]s$/.test(m[1]!);
    const word = possessive ? m[1]!.slice(0, -2) : m[1]!;
    if (words.length === 0 && MODIFIERS.has(word)) {
      optional ||= word === "optional";
      end = WORD.lastIndex;
      continue;
    }
    if (isStopword(word) || STOP.has(word)) break;
    words.push(word);
    end = WORD.lastIndex;
    if (possessive) break;
  }
  const first = words[0];
  if (!first || NOT_SUBJECT.has(first) || /^\d/.test(first)) return null;
  return { words: words.map((w) => FOREIGN.get(ascii(w)) ?? w), end, optional };
}

export function titleOf(words: string[]): string[] {
  const kept = [...words];
  // "a flight number" is about a flight: in a title a number identifies as a name does.
  while (kept.length > 1 && (IDENTIFIERS.has(kept[kept.length - 1]!) || kept[kept.length - 1] === "number")) kept.pop();
  return kept.length === 1 && TITLE_ALIASES.has(kept[0]!) ? [TITLE_ALIASES.get(kept[0]!)!] : kept;
}

/** "stock ticker" → ["ticker"]: an identifier that implies its subject needs no subject word in the input's name. */
export function inputWords(words: string[]): string[] {
  const last = words[words.length - 1]!;
  return words.length > 1 && TITLE_ALIASES.get(last) === words[words.length - 2] ? [last] : words;
}
