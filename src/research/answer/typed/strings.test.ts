import { expect, test } from "bun:test";
import type { EvidenceSentence } from "../evidence.ts";
import { fieldQuery, type Evidence } from "./fields.ts";
import { extractString } from "./strings.ts";

/** Evidence with the scores a ranking gave it, to weigh the candidates of one field against each other. */
function evidence(...ranked: [string, number][]): Evidence[] {
  return ranked.map(([text, score], i) => ({
    sentence: { sourceId: 1, passage: i, position: 0, text, terms: [], termCounts: new Map(), passageScore: 1 } as EvidenceSentence,
    text,
    score,
  }));
}

test("a role's holder is the name the role titles, even in a weaker sentence; the place owning the role is no person", () => {
  const found = extractString(
    fieldQuery(["acting_premier"]),
    evidence(
      ["Officials arrested the Caribbean Territory’s Premier Andrew Fahie on Thursday.", 1],
      ["The Honourable Deputy Premier Natalio Wheatley will remain in charge of the Territory.", 0.6],
    ),
    ["andrew", "fahie"],
  );
  expect(found?.value).toBe("Natalio Wheatley");
});

test("a code or acronym is a whole name: the field's word after it is not added ('COP28', not 'COP28 summit')", () => {
  const found = extractString(fieldQuery(["summit"]), evidence(["Leaders will meet at the COP28 summit in Dubai next month.", 1]), []);
  expect(found?.value).toBe("COP28");
  const hospital = extractString(fieldQuery(["hospital"]), evidence(["She was taken to Royal Shrewsbury hospital on 12 April.", 1]), []);
  expect(hospital?.value).toBe("Royal Shrewsbury hospital");
});

test("a person field prefers a name the lexicon knows for a person's over a capitalised product beside the role word", () => {
  const found = extractString(
    fieldQuery(["researcher"]),
    evidence(
      ["The researcher said the just-released Minecraft Realms build leaked addresses.", 1],
      ["Developer Ammar Askar wrote about the researcher's findings in a blog post.", 0.9],
    ),
    ["minecraft"],
  );
  expect(found?.value).toBe("Ammar Askar");
});

test("a place field takes the name after its own word ('the US state of Louisiana'), not a country; the question's own place is not the answer", () => {
  const state = extractString(
    fieldQuery(["shooting_state"]),
    evidence(["Hours later, a gunman opened fire at a cinema in the US state of Louisiana, killing two people.", 1]),
    [],
  );
  expect(state?.value).toBe("Louisiana");
  const venue = extractString(
    fieldQuery(["venue"]),
    evidence(["The forum was held at the Lloyd Erskine Sandiford Centre in Barbados on Wednesday.", 1]),
    ["barbados"],
  );
  expect(venue?.value).toBe("Lloyd Erskine Sandiford Centre");
  // The lexicon knows Tunis for a city and Italy for a country: a city field takes the city.
  const city = extractString(
    fieldQuery(["city"]),
    evidence(["Tourists from Italy were among those killed at the museum in Tunis on Wednesday.", 1]),
    [],
  );
  expect(city?.value).toBe("Tunis");
});

test("an organisation named with 'and' is one name; two names joined by 'and' stay two", () => {
  const union = extractString(
    fieldQuery(["publishing_union"]),
    evidence(["The boycott was called by the University and College Union after the publisher's decision.", 1]),
    [],
  );
  expect(union?.value).toBe("University and College Union");
  const backer = extractString(
    fieldQuery(["backer"]),
    evidence(["The backer was Bank of America and Wells Fargo Bank joined later.", 1]),
    [],
  );
  expect(backer?.value).toBe("Bank of America");
});

test("a company field takes a name written as an organisation's over a country; 'Paris-based' is no name", () => {
  const company = extractString(
    fieldQuery(["forrest_jones_company"]),
    evidence(
      ["Zeev Sharon and Michael Forrest Jones both run hotel start-ups in the US.", 1.6],
      ["Forrest Jones runs the start-up Beechmont Hotels Corporation, a hotel operating company.", 0.45],
    ),
    ["zeev", "sharon", "forrest", "jones"],
  );
  expect(company?.value).toBe("Beechmont Hotels Corporation");
  const house = extractString(
    fieldQuery(["auction_house"]),
    evidence(["The work set auction records when Paris-based auction house Artcurial sold it for 24.4 million euros.", 1]),
    [],
  );
  expect(house?.value).toBe("Artcurial");
});
