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
