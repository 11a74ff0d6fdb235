import { describe, expect, test } from "bun:test";
import { InvalidInput } from "../errors.ts";
import { MAX_JSON_DEPTH, parseJsonInput, textProblem, tooDeepAt, valueProblems } from "./json-input.ts";

const nested = (n: number) => "[".repeat(n) + "]".repeat(n);
const offset = () => 7;

describe("tooDeepAt", () => {
  test("counts brackets outside strings only", () => {
    expect(tooDeepAt(nested(MAX_JSON_DEPTH))).toBe(-1);
    expect(tooDeepAt(nested(MAX_JSON_DEPTH + 1))).toBe(MAX_JSON_DEPTH);
    expect(tooDeepAt(JSON.stringify({ a: "[".repeat(500) }))).toBe(-1);
    // An escaped quote does not end the string; an escaped backslash before the quote does.
    expect(tooDeepAt(`{"a": "x\\"${"[".repeat(100)}"}`)).toBe(-1);
    expect(tooDeepAt(`{"a": "x\\\\", "b": ${nested(100)}}`)).toBeGreaterThan(0);
  });

  test("an unterminated string is left to JSON.parse", () => {
    expect(tooDeepAt('{"a": "open')).toBe(-1);
  });
});

describe("textProblem", () => {
  test("refuses U+0000 and lone surrogates, keeps every other character", () => {
    expect(textProblem("a\u0000", ["x"])?.type).toBe("string_unicode");
    expect(textProblem("\ud800", ["x"])?.type).toBe("string_unicode");
    expect(textProblem("\udc00a", ["x"])?.type).toBe("string_unicode");
    expect(textProblem("emoji \ud83d\ude00, RTL \u202e, BOM \ufeff", ["x"])).toBeNull();
  });
});

describe("valueProblems", () => {
  test("finds problems in keys and nested values, at their location", () => {
    expect(valueProblems({ a: [1, "ok", "b\u0000"] }, ["body"]).map((p) => p.loc)).toEqual([["body", "a", 2]]);
    expect(valueProblems({ a: { "k\u0000": 1 } }, ["body"]).map((p) => p.loc)).toEqual([["body", "a"]]);
  });

  test("stops one level past the limit instead of walking the whole value", () => {
    const value = JSON.parse(nested(10_000));
    const problems = valueProblems(value, ["body"]);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.type).toBe("json_too_deep");
    expect(problems[0]!.loc).toHaveLength(1 + MAX_JSON_DEPTH);
  });
});

describe("parseJsonInput", () => {
  test("parses what is within the limits", () => {
    expect(parseJsonInput('{"a": "\\u00e9"}', offset)).toEqual({ a: "é" });
  });

  test("malformed JSON is json_invalid at the offset given", () => {
    try {
      parseJsonInput("{", offset);
      throw new Error("parsed");
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidInput);
      expect((error as InvalidInput).issues).toEqual([{ loc: ["body", 7], msg: "JSON decode error", type: "json_invalid" }]);
    }
  });

  test("too deep is refused before parsing; an escaped NUL after parsing", () => {
    expect(() => parseJsonInput(nested(100_000), offset)).toThrow(InvalidInput);
    expect(() => parseJsonInput('{"a": "\\u0000"}', offset)).toThrow(InvalidInput);
  });
});
