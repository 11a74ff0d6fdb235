/**
 * The clauses of ../shared/SPEC.md sections 2 to 9, read from the spec
 * itself so the count cannot drift from the text: every table row, every
 * list item and every paragraph that is not a table's or a list's heading.
 *
 * Clause ids:
 * - a table row: `<section> · <key>`, where the key is the first cell
 *   (section 3: `From · Trigger`; section 4: `METHOD path`), e.g.
 *   `4 · POST /v1/design-api/{api_id}/versions`, `2.1 · image`, `7 · 429`;
 * - a numbered item: `<section>.<n>`, e.g. `4.1.3`, `6.2`, `9.7`;
 * - a bullet: `<section> · •<n>`, e.g. `2.2 · •1`;
 * - a paragraph: `<section> · ¶<n>`, e.g. `2.1 · ¶1`.
 */
import { readFileSync } from "node:fs";
import { sharedPath } from "../helpers/shared.ts";

export const SPEC_PATH = sharedPath("SPEC.md");

export interface Clause {
  id: string;
  text: string;
}

const clean = (cell: string) => cell.replace(/`/g, "").replace(/\s+/g, " ").trim();

function rowKey(section: string, cells: string[]): string {
  if (section === "3") return `${cells[0]} · ${cells[1]}`;
  if (section === "4") return `${cells[0]} ${cells[1]}`;
  return cells[0]!;
}

export function specClauses(text = readFileSync(SPEC_PATH, "utf8")): Clause[] {
  const clauses: Clause[] = [];
  let section = "";
  let paragraph = 0;
  let bullet = 0;
  let inTable = false;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heading = /^#{2,3} (\d+(?:\.\d+)?)\.? /.exec(line);
    if (heading) {
      section = heading[1]!;
      paragraph = 0;
      bullet = 0;
      inTable = false;
      continue;
    }
    const major = Number.parseInt(section, 10);
    if (!section || major < 2 || major > 9) continue;
    if (line.startsWith("|")) {
      const cells = line.split("|").slice(1, -1).map(clean);
      // The header row and the separator under it are not clauses.
      if (!inTable || cells.every((c) => /^-+$/.test(c))) {
        inTable = true;
        continue;
      }
      clauses.push({ id: `${section} · ${rowKey(section, cells)}`, text: cells.join(" | ") });
      continue;
    }
    inTable = false;
    const numbered = /^(\d+)\. (.*)$/.exec(line);
    if (numbered) {
      clauses.push({ id: `${section}.${numbered[1]}`, text: clean(numbered[2]!) });
      continue;
    }
    const bulleted = /^- (.*)$/.exec(line);
    if (bulleted) {
      clauses.push({ id: `${section} · •${++bullet}`, text: clean(bulleted[1]!) });
      continue;
    }
    if (line.trim() === "") continue;
    // A line introducing a table or list (ends with a colon and is followed by one) is its heading, not a clause.
    const next = lines.slice(i + 1).find((l) => l.trim() !== "") ?? "";
    if (/:\s*$/.test(line) && /^(\||- |\d+\. )/.test(next)) continue;
    clauses.push({ id: `${section} · ¶${++paragraph}`, text: clean(line) });
  }
  return clauses;
}
