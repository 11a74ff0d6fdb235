/**
 * Path and query values are text from the URL: Elysia decodes them, and a
 * `%00` reaches a query as U+0000 (Postgres refuses it: a 500), while a bad
 * escape (`%E0%A4%A`) makes the parameter null. Both are refused here, after
 * authentication and before any handler, with FastAPI's 422 shape. Bodies
 * get the same checks in the parser (json-input.ts).
 */
import { Elysia } from "elysia";
import { InvalidInput, type ValidationIssue } from "../errors.ts";
import { textProblem } from "./json-input.ts";

// Keys that shadow Object.prototype members: Elysia formats a failing query with `${value}`, which calls them.
const SHADOWING = ["toString", "valueOf", "toLocaleString", "constructor"];

function urlProblems(values: Record<string, unknown>, where: "path" | "query"): ValidationIssue[] {
  const problems: ValidationIssue[] = [];
  for (const [name, value] of Object.entries(values)) {
    const loc = [where, name];
    const keyProblem = textProblem(name, [where]);
    if (keyProblem) problems.push(keyProblem);
    for (const text of Array.isArray(value) ? value : [value]) {
      if (text === null)
        problems.push({ loc, msg: "Input should be a valid string, unable to parse raw data as a unicode string", type: "string_unicode" });
      else if (typeof text === "string") {
        const problem = textProblem(text, loc);
        if (problem) problems.push(problem);
      }
    }
  }
  return problems;
}

export function inputGuard() {
  return new Elysia({ name: "input-guard" })
    .onTransform({ as: "global" }, ({ query }) => {
      for (const key of SHADOWING) if (query && Object.hasOwn(query, key)) delete (query as Record<string, unknown>)[key];
    })
    .onBeforeHandle({ as: "global" }, ({ params, query }) => {
      const problems = [
        ...urlProblems((params ?? {}) as Record<string, unknown>, "path"),
        ...urlProblems((query ?? {}) as Record<string, unknown>, "query"),
      ];
      if (problems.length) throw new InvalidInput(problems.slice(0, 20));
    });
}
