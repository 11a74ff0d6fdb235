import { describe, expect, test } from "bun:test";
import { markdownToPlain, splitPassages } from "./passages.ts";

describe("passages", () => {
  test("markdown becomes plain prose", () => {
    expect(markdownToPlain("## Title\n\nSee [the docs](https://x.dev/a_(b)) and **bold** _it_ `code`.")).toBe(
      "Title\n\nSee the docs and bold it code.",
    );
    expect(markdownToPlain("| a | b |\n| --- | --- |\n| 1 | 2 |")).toBe("a b\n1 2");
  });

  test("paragraphs are joined under their heading and never across one", () => {
    const md = "# Intro\n\nFirst short paragraph.\n\nSecond short one.\n\n## Details\n\nA detail.";
    expect(splitPassages(md)).toEqual([
      { ordinal: 0, heading: "Intro", content: "First short paragraph.\n\nSecond short one." },
      { ordinal: 1, heading: "Details", content: "A detail." },
    ]);
  });

  test("long text is cut into passages of bounded size", () => {
    const sentence = "This sentence has exactly eight words in it. ";
    const passages = splitPassages(sentence.repeat(100));
    expect(passages.length).toBeGreaterThan(5);
    for (const p of passages) expect(p.content.split(/\s+/).length).toBeLessThanOrEqual(220);
    expect(
      passages
        .map((p) => p.content)
        .join(" ")
        .split(/\s+/).length,
    ).toBe(800);
    const runOn = splitPassages("word ".repeat(1000));
    expect(Math.max(...runOn.map((p) => p.content.split(/\s+/).length))).toBeLessThanOrEqual(220);
  });
});
