/**
 * An endpoint's name, as a person would title it: the subject first, then
 * what is asked ("Company ESG score", "City tourist attractions"), a
 * "profile" when many facts are asked, a "comparison" for two sides.
 */
import type { Format } from "./graph.ts";
import type { InputReading } from "./inputs.ts";
import { sentenceCase, shortTitle } from "./words.ts";

const ACRONYMS = new Set("ceo cfo cto coo gdp url isbn doi pe usd eur gbp api ipo id uk us eu ai ev esg fda sku roi eps".split(" "));

function titleWords(text: string): string {
  return text
    .split(/[\s_]+/)
    .map((w) => (ACRONYMS.has(w) ? w.toUpperCase() : w))
    .join(" ");
}

/** A yes/no field is titled by what it asks about, without its verb: is_in_stock → "in stock". */
function fieldTitle(name: string, shape: Format[string]): string {
  const words = name.split("_");
  return titleWords((shape === "boolean" && words.length > 1 ? words.slice(1) : words).join(" "));
}

/** "Company profile", "City tourist attractions", "Company comparison": subject first, then what is asked. */
export function apiName(reading: InputReading, format: Format, topic: string, pair: [string, string] | null, prompt: string): string {
  const index = pair
    ? reading.inputs.findIndex((i) => i.name === pair[0])
    : reading.inputs.findIndex((i, k) => i.type === "string" && !/^(start|end)_/.test(i.name) && reading.titles[k]!.length > 0);
  const subject = index >= 0 ? titleWords(reading.titles[index]!.join(" ")) : "";
  const fields = Object.entries(format).map(([field, shape]) => fieldTitle(field, shape));
  // One yes/no question makes the endpoint a check: "Website down check".
  const check = fields.length === 1 && Object.values(format)[0] === "boolean" ? " check" : "";
  let name: string;
  if (pair) name = `${subject || "Side by side"} comparison`;
  else if (!fields.length) name = subject ? `${subject} overview` : topic || prompt.split(/[.?!\n]/)[0]!;
  else if (fields.length === 1) name = `${subject ? `${subject} ${fields[0]}` : fields[0]!}${check}`;
  else if (fields.length === 2) name = subject ? `${subject} ${fields[0]} and ${fields[1]}` : `${fields[0]} and ${fields[1]}`;
  else name = subject ? `${subject} profile` : topic || `${fields[0]}, ${fields[1]} and more`;
  const title = sentenceCase(shortTitle(name.replace(/[{}[\]"]/g, " ")));
  return /[\p{L}\p{N}]/u.test(title) ? title : "Research";
}
