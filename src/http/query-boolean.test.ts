import { expect, test } from "bun:test";
import { InvalidInput } from "../errors.ts";
import { queryBoolean } from "./query-boolean.ts";

test("a query boolean reads as FastAPI reads one; anything else is bool_parsing at its name", () => {
  for (const word of ["1", "true", "TRUE", "yes", "on", "t", "y"]) expect(queryBoolean(word, "all_versions", false)).toBe(true);
  for (const word of ["0", "false", "No", "off", "f", "n"]) expect(queryBoolean(word, "all_versions", true)).toBe(false);
  expect(queryBoolean(undefined, "all_versions", false)).toBe(false);
  expect(queryBoolean(true, "all_versions", false)).toBe(true);
  try {
    queryBoolean("maybe", "all_versions", false);
    throw new Error("accepted");
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInput);
    expect((error as InvalidInput).issues).toEqual([
      { loc: ["query", "all_versions"], msg: "Input should be a valid boolean, unable to interpret input", type: "bool_parsing" },
    ]);
  }
});
