import { describe, expect, test } from "bun:test";
import { bm25Scores, rankPassages } from "./rank.ts";

describe("ranking", () => {
  test("BM25 prefers passages with the rarer query terms", () => {
    const scores = bm25Scores(
      ["bridge", "cost"],
      [
        ["bridge", "cost", "million"],
        ["bridge", "river"],
        ["weather", "today"],
      ],
    );
    expect(scores[0]).toBeGreaterThan(scores[1]!);
    expect(scores[2]).toBe(0);
  });

  test("MMR skips near-duplicates and spreads over sources, within the token budget", () => {
    const same = "The bridge will cost 40 million euros according to the council budget.";
    const ranked = rankPassages(
      "how much will the bridge cost",
      [
        { sourceId: 1, text: same },
        { sourceId: 2, text: same },
        { sourceId: 2, text: "Construction of the bridge costs were debated for two years by the council." },
        { sourceId: 3, text: "Unrelated text about the weather." },
      ],
      { tokenBudget: 1_000, maxPassages: 5 },
    );
    expect(ranked.map((r) => r.sourceId)).toEqual([1, 2]);
    expect(ranked[1]!.text).toContain("debated");
    const tight = rankPassages(
      "bridge cost",
      [
        { sourceId: 1, text: same },
        { sourceId: 2, text: "bridge cost ".repeat(200) },
      ],
      { tokenBudget: 30, maxPassages: 5 },
    );
    expect(tight.reduce((s, p) => s + p.tokens, 0)).toBeLessThanOrEqual(30);
  });
});
