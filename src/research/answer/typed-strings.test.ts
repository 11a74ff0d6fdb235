import { expect, test } from "bun:test";
import type { EvidenceSentence } from "./extractive-evidence.ts";
import { fieldQuery, type Evidence } from "./typed-fields.ts";
import { extractString } from "./typed-strings.ts";

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
