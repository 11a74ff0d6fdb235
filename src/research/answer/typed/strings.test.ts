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

/** A field, the value it takes, the question's subject words, and the ranked sentences it is read from. */
type Case = [field: string, value: string, subject: string[], ...ranked: [string, number][]];

const RULES: [rule: string, cases: Case[]][] = [
  [
    "a role's holder is the name the role titles, even in a weaker sentence; the place owning the role is no person",
    [
      [
        "acting_premier",
        "Natalio Wheatley",
        ["andrew", "fahie"],
        ["Officials arrested the Caribbean Territory’s Premier Andrew Fahie on Thursday.", 1],
        ["The Honourable Deputy Premier Natalio Wheatley will remain in charge of the Territory.", 0.6],
      ],
    ],
  ],
  [
    "a code or acronym is a whole name: the field's word after it is not added ('COP28', not 'COP28 summit')",
    [
      ["summit", "COP28", [], ["Leaders will meet at the COP28 summit in Dubai next month.", 1]],
      ["hospital", "Royal Shrewsbury hospital", [], ["She was taken to Royal Shrewsbury hospital on 12 April.", 1]],
    ],
  ],
  [
    "a person field prefers a name the lexicon knows for a person's over a capitalised product beside the role word",
    [
      [
        "researcher",
        "Ammar Askar",
        ["minecraft"],
        ["The researcher said the just-released Minecraft Realms build leaked addresses.", 1],
        ["Developer Ammar Askar wrote about the researcher's findings in a blog post.", 0.9],
      ],
    ],
  ],
  [
    "a place field takes the name after its own word ('the US state of Louisiana'), not a country; the question's own place is not the answer",
    [
      [
        "shooting_state",
        "Louisiana",
        [],
        ["Hours later, a gunman opened fire at a cinema in the US state of Louisiana, killing two people.", 1],
      ],
      [
        "venue",
        "Lloyd Erskine Sandiford Centre",
        ["barbados"],
        ["The forum was held at the Lloyd Erskine Sandiford Centre in Barbados on Wednesday.", 1],
      ],
      // The lexicon knows Tunis for a city and Italy for a country: a city field takes the city.
      ["city", "Tunis", [], ["Tourists from Italy were among those killed at the museum in Tunis on Wednesday.", 1]],
    ],
  ],
  [
    "an organisation named with 'and' is one name; two names joined by 'and' stay two",
    [
      [
        "publishing_union",
        "University and College Union",
        [],
        ["The boycott was called by the University and College Union after the publisher's decision.", 1],
      ],
      ["backer", "Bank of America", [], ["The backer was Bank of America and Wells Fargo Bank joined later.", 1]],
    ],
  ],
  [
    "a company field takes a name written as an organisation's over a country; 'Paris-based' is no name",
    [
      [
        "forrest_jones_company",
        "Beechmont Hotels Corporation",
        ["zeev", "sharon", "forrest", "jones"],
        ["Zeev Sharon and Michael Forrest Jones both run hotel start-ups in the US.", 1.6],
        ["Forrest Jones runs the start-up Beechmont Hotels Corporation, a hotel operating company.", 0.45],
      ],
      [
        "auction_house",
        "Artcurial",
        [],
        ["The work set auction records when Paris-based auction house Artcurial sold it for 24.4 million euros.", 1],
      ],
    ],
  ],
];

for (const [rule, cases] of RULES)
  test(rule, () => {
    for (const [field, value, subject, ...ranked] of cases)
      expect(extractString(fieldQuery([field]), evidence(...ranked), subject)?.value).toBe(value);
  });
