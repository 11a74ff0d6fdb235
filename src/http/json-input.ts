/**
 * What every caller-sent JSON value must be before any validator or query
 * sees it: nested at most MAX_JSON_DEPTH levels (validators and the error
 * path recurse, so a 100,000-deep array would otherwise cost seconds and the
 * stack), and text Postgres can store (no U+0000, no lone surrogate: `text`
 * columns refuse the first, UTF-8 cannot encode the second).
 */
import { InvalidInput, type ValidationIssue } from "../errors.ts";

export const MAX_JSON_DEPTH = 64;

type Loc = (string | number)[];

const tooDeep = (loc: Loc): ValidationIssue => ({ loc, msg: `JSON should nest at most ${MAX_JSON_DEPTH} levels`, type: "json_too_deep" });

/**
 * The offset of the bracket that opens level MAX_JSON_DEPTH + 1, or -1.
 * Strings are skipped with indexOf, so a long string costs one native scan.
 * A malformed text is left to JSON.parse to report.
 */
export function tooDeepAt(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      let end = i;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end < 0) return -1;
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 92) slashes++;
        if (slashes % 2 === 0) break;
      }
      i = end;
    } else if (c === 91 || c === 123) {
      if (++depth > MAX_JSON_DEPTH) return i;
    } else if (c === 93 || c === 125) depth--;
  }
  return -1;
}

/** The problem with one piece of caller text, or null: NUL and lone surrogates cannot be stored. */
export function textProblem(text: string, loc: Loc): ValidationIssue | null {
  if (text.includes("\u0000")) return { loc, msg: "String should not contain the NUL character (U+0000)", type: "string_unicode" };
  if (!text.isWellFormed())
    return { loc, msg: "Input should be a valid string, unable to parse raw data as a unicode string", type: "string_unicode" };
  return null;
}

/** Depth and text problems anywhere in a parsed value (keys included); the walk stops one level past the limit. */
export function valueProblems(value: unknown, loc: Loc): ValidationIssue[] {
  const problems: ValidationIssue[] = [];
  const walk = (v: unknown, at: Loc, depth: number): void => {
    if (problems.length >= 20) return;
    if (typeof v === "string") {
      const problem = textProblem(v, at);
      if (problem) problems.push(problem);
      return;
    }
    if (v === null || typeof v !== "object") return;
    if (depth >= MAX_JSON_DEPTH) {
      problems.push(tooDeep(at));
      return;
    }
    if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, [...at, i], depth + 1));
      return;
    }
    for (const [key, item] of Object.entries(v)) {
      const keyProblem = textProblem(key, at);
      if (keyProblem) problems.push(keyProblem);
      else walk(item, [...at, key], depth + 1);
    }
  };
  walk(value, loc, 0);
  return problems;
}

/**
 * Parses a caller's JSON text under the limits above; malformed JSON is
 * FastAPI's json_invalid at its offset (found by `errorOffset`).
 */
export function parseJsonInput(text: string, errorOffset: (text: string) => number): unknown {
  const deep = tooDeepAt(text);
  if (deep >= 0) throw new InvalidInput([tooDeep(["body", deep])]);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InvalidInput([{ loc: ["body", errorOffset(text)], msg: "JSON decode error", type: "json_invalid" }]);
  }
  // Without an escape, text decoded from UTF-8 holds neither NUL (JSON forbids it raw) nor a lone surrogate.
  if (text.includes("\\u")) {
    const problems = valueProblems(value, ["body"]);
    if (problems.length) throw new InvalidInput(problems);
  }
  return value;
}
