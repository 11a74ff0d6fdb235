/**
 * A small table of words that ask and answer the same thing ("founded" /
 * "established", "tall" / "height"), in the languages the stopword list
 * covers. Without it, a question and its answer that use different words
 * never meet; with a large one, everything meets. It covers the facts people
 * most often ask of companies, places and things; anything else relies on
 * inflection matching alone.
 */
import { sameTerm } from "./evidence.ts";

const GROUPS: string[][] = [
  [
    "founded",
    "established",
    "started",
    "founder",
    "founding",
    "incorporated",
    "gegründet",
    "gründer",
    "fondée",
    "fondateur",
    "fundada",
    "fundador",
  ],
  ["tall", "height", "high", "hoch", "höhe", "hauteur", "altura"],
  [
    "completed",
    "finished",
    "built",
    "constructed",
    "opened",
    "inaugurated",
    "fertiggestellt",
    "vollendet",
    "eröffnet",
    "achevée",
    "terminée",
    "construite",
    "inaugurée",
  ],
  ["designed", "design", "designer", "architect", "engineer", "entwurf", "entworfen", "conçu", "diseñado"],
  ["headquartered", "headquarters", "based", "hq", "sitz", "siège"],
  ["employees", "employs", "staff", "workforce", "workers", "mitarbeiter", "beschäftigt", "salariés", "employés", "empleados"],
  ["visitors", "visit", "visited", "tourists", "besucher", "visiteurs"],
  ["price", "cost", "costs", "priced", "kostet", "preis", "prix", "coûte", "precio"],
  ["ceo", "chief", "executive", "geschäftsführer", "pdg"],
  ["revenue", "sales", "turnover", "umsatz", "chiffre"],
  ["products", "product", "sells", "makes", "offers", "produkte", "produits", "productos"],
  ["public", "publicly", "listed", "traded", "exchange", "börsennotiert", "cotée"],
  ["population", "inhabitants", "residents", "einwohner", "habitants", "habitantes"],
  ["located", "location", "situated", "lies", "liegt", "située", "situé"],
  ["died", "death", "gestorben", "starb", "mort", "décédé"],
  ["born", "birth", "geboren", "née", "nació"],
  // Verbs questions use where the answer uses another: "grow up" / "raised", "play" / "face", "fund" / "sponsor".
  ["grow", "grew", "raised", "upbringing", "aufgewachsen", "grandi", "creció"],
  ["play", "plays", "face", "faces", "meet", "meets", "oppose", "opposes", "against", "spielt", "affronte", "enfrenta"],
  ["funded", "funding", "fund", "sponsored", "financed", "grant", "finanziert", "financé", "financiado"],
];

/** The terms with their table neighbours added (each once), the originals first. */
export function withSynonyms(terms: string[]): string[] {
  const out = [...terms];
  for (const term of terms) {
    for (const group of GROUPS) {
      if (!group.some((g) => sameTerm(g, term))) continue;
      for (const g of group) if (!out.some((o) => sameTerm(o, g))) out.push(g);
    }
  }
  return out;
}
