/**
 * A boolean in a query string, read as FastAPI (pydantic) reads one:
 * 1/0, true/false, yes/no, on/off, t/f, y/n in any case; anything else is
 * its 422 `bool_parsing`.
 */
import { invalid } from "../errors.ts";

const TRUE = new Set(["1", "true", "yes", "on", "t", "y"]);
const FALSE = new Set(["0", "false", "no", "off", "f", "n"]);

export function queryBoolean(value: string | boolean | undefined, name: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value === "boolean") return value;
  const word = value.trim().toLowerCase();
  if (TRUE.has(word)) return true;
  if (FALSE.has(word)) return false;
  throw invalid(["query", name], "Input should be a valid boolean, unable to interpret input", "bool_parsing");
}
