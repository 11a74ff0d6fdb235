import { describe, expect, test } from "bun:test";
import { compareResults, proseOf } from "./monitor-change.ts";

const source = (id: number, url: string) => ({ id, metadata: { url, title: "t", content: "c" } });

describe("a structured answer", () => {
  test("the same fields and values (whitespace aside) are no change", () => {
    expect(compareResults({ response: { a: "x  y", b: { c: 1 } } }, { response: { a: "x y", b: { c: 1 } } })).toBeNull();
  });

  test("a changed, an added and a removed field, by path, with before and after", () => {
    const changes = compareResults({ response: { a: 1, b: { c: "old", d: [1] } } }, { response: { a: 1, b: { c: "new" }, e: true } });
    expect(changes).toEqual({
      kind: "fields",
      fields: [
        { path: "b.c", before: "old", after: "new" },
        { path: "e", before: null, after: true },
        { path: "b.d", before: [1], after: null },
      ],
    });
  });

  test("an array is one value: any change in it is a change of its field", () => {
    expect(compareResults({ response: { list: [1, 2] } }, { response: { list: [2, 1] } })).toEqual({
      kind: "fields",
      fields: [{ path: "list", before: [1, 2], after: [2, 1] }],
    });
  });
});

describe("a prose answer", () => {
  const before = {
    response: "The bridge opens in 2027 [1]. It costs 42 million [2].",
    context: [source(1, "http://a/1"), source(2, "http://b/2")],
  };

  test("the same claims citing the same sources under other numbers are no change", () => {
    const after = {
      response: "The bridge opens in 2027 [2].  It costs 42 million [1].",
      context: [source(1, "http://b/2"), source(2, "http://a/1")],
    };
    expect(compareResults(before, after)).toBeNull();
  });

  test("a new claim and a new source are reported added; the old ones removed", () => {
    const after = {
      response: "The bridge opens in 2028 [1]. It costs 42 million [2][3].",
      context: [source(1, "http://a/1"), source(2, "http://b/2"), source(3, "http://c/3")],
    };
    expect(compareResults(before, after)).toEqual({
      kind: "prose",
      sources: { added: ["http://c/3"], removed: [] },
      claims: {
        added: ["The bridge opens in 2028 [http://a/1].", "It costs 42 million [http://b/2][http://c/3]."],
        removed: ["The bridge opens in 2027 [http://a/1].", "It costs 42 million [http://b/2]."],
      },
    });
  });

  test("a source in the context but not cited is not one of its sources", () => {
    const prose = proseOf({ response: "Only one [1].", context: [source(1, "http://a/1"), source(2, "http://b/2")] });
    expect([...prose.sources]).toEqual(["http://a/1"]);
  });

  test("a marker after the full stop stays with its sentence", () => {
    const prose = proseOf({ response: "One. [1] Two [2].", context: [source(1, "u1"), source(2, "u2")] });
    expect([...prose.claims]).toEqual(["One. [u1]", "Two [u2]."]);
  });
});

test("an answer that turned from prose to structured is a change of shape", () => {
  expect(compareResults({ response: "text" }, { response: { a: 1 } })).toEqual({ kind: "shape", before: "prose", after: "structured" });
});
