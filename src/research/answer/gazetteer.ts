/**
 * What kind of thing a name is, looked up in the lexicon compromise ships
 * inside its npm package: about 3,000 given names, 900 surnames, 480 cities,
 * 210 regions, 245 countries and 480 organisations and teams. A lexicon, not
 * a tagger (wink's lite model, which reads our sentences, has no people,
 * places or organisations): it knows "Ammar" for a given name and "Tunis" for
 * a city, and says nothing of a name it has never met, so every use of it is
 * a preference between candidates, never a filter.
 *
 * compromise is loaded on first use (about 250 ms and 20 MB), not at import:
 * a service that is never asked for a typed field without an LLM never pays.
 */
import type CompromiseTwo from "compromise/two";

export type NameKind = "given" | "surname" | "person" | "city" | "region" | "country" | "organisation";

const TAGS: [string, NameKind][] = [
  ["FemaleName", "given"],
  ["MaleName", "given"],
  ["FirstName", "given"],
  ["LastName", "surname"],
  ["Person", "person"],
  ["City", "city"],
  ["Region", "region"],
  ["Country", "country"],
  ["Organization", "organisation"],
  ["SportsTeam", "organisation"],
];

let lexicon: Map<string, Set<NameKind>> | null = null;

function entries(): Map<string, Set<NameKind>> {
  if (lexicon) return lexicon;
  // The CommonJS build: its module is nlp itself.
  const nlp = require("compromise/two") as typeof CompromiseTwo;
  const raw = (nlp.model() as { one: { lexicon: Record<string, string | string[]> } }).one.lexicon;
  const built = new Map<string, Set<NameKind>>();
  for (const [word, tags] of Object.entries(raw)) {
    const kinds = new Set<NameKind>();
    for (const tag of Array.isArray(tags) ? tags : [tags]) for (const [t, kind] of TAGS) if (t === tag) kinds.add(kind);
    if (kinds.size) built.set(word, kinds);
  }
  lexicon = built;
  return built;
}

const NONE: ReadonlySet<NameKind> = new Set();

/** The kinds the lexicon gives a name or a word of it, written as a page writes it ("Baton Rouge", "Tunis"). */
export function lexiconKinds(name: string): ReadonlySet<NameKind> {
  return (
    entries().get(
      name
        .toLowerCase()
        .replace(/['’]s$/u, "")
        .replace(/[.,]$/, ""),
    ) ?? NONE
  );
}

/** Whether a name reads as a person's: the whole is a known person, or a word of it a given name. */
export function soundsLikePerson(name: string): boolean {
  if (lexiconKinds(name).has("person")) return true;
  return name.split(/\s+/).some((w) => /^\p{Lu}/u.test(w) && lexiconKinds(w).has("given"));
}

const PLACES: NameKind[] = ["city", "region", "country"];

/** The place kinds of a name taken whole ("Tunis" → city, "Louisiana" → region); empty for names it has not met. */
export function placeKinds(name: string): NameKind[] {
  const kinds = lexiconKinds(name);
  return PLACES.filter((k) => kinds.has(k));
}

/** Whether a name is known for something other than a person: a place or an organisation, taken whole. */
export function knownNotPerson(name: string): boolean {
  const kinds = lexiconKinds(name);
  return !kinds.has("person") && !kinds.has("given") && (placeKinds(name).length > 0 || kinds.has("organisation"));
}
