/**
 * The Biome overrides that say test/lint/boundaries.ts, as the file biome.jsonc
 * extends: every rule written out in every override it binds in.
 */
import { BROWSER, EVERY_FILE, FLOORS, FOLDERS, type Floor, type Forbidden, GLOBAL_FETCH, UNIT_TESTS } from "./boundaries.ts";

interface Override {
  comment: string;
  includes: string[];
  linter: unknown;
}

function restrictImports(comment: string, includes: string[], rules: Forbidden[]): Override {
  const patterns = rules.map((rule) => ({ group: rule.patterns, message: rule.message }));
  return { comment, includes, linter: { rules: { style: { noRestrictedImports: { level: "error", options: { patterns } } } } } };
}

/** Every rule that binds a floor: EVERY_FILE's but those it is free of, then every folder it may not import. */
function floorRules(floor: Floor): Forbidden[] {
  const rules = EVERY_FILE.filter((rule) => !floor.freeOf?.includes(rule));
  if (floor.mayImport === "any") return rules;
  const allowed = new Set<string>([...floor.mayImport, ...(floor.folders ?? []), "abuse"]);
  const forbidden = FOLDERS.filter((folder) => !allowed.has(folder));
  return [...rules, { patterns: forbidden.map((folder) => `**/${folder}/**`), message: floor.message }];
}

function floorOverride(floor: Floor): Override {
  const includes = floor.files ?? (floor.folders ?? []).map((folder) => `src/${folder}/**`);
  return restrictImports(floor.what, includes, floorRules(floor));
}

/** Browser code: no way up from below BROWSER.depth, then one override per depth that lets a file go up to the folder, not above. */
function browserOverrides(): Override[] {
  const { folder, packages, depth, message } = BROWSER;
  const inside = ["**", ...packages.flatMap((name) => [`!${name}`, `!${name}/**`]), "!./**"];
  const overrides = [
    restrictImports(
      `The dashboard's browser code in ${folder}/ itself and deeper than the overrides below reach: no way up at all.`,
      [`${folder}/**`],
      [{ patterns: inside, message }],
    ),
  ];
  for (let below = 1; below <= depth; below++)
    overrides.push(
      restrictImports(
        `The dashboard's browser code ${below} folder(s) below ${folder}/: up to it, never above it.`,
        [`${folder}/${"*/".repeat(below)}*`],
        [{ patterns: [...inside, "!../**", `${"../".repeat(below + 1)}**`], message }],
      ),
    );
  return overrides;
}

/** The global fetch, forbidden in every spelling in every file of src/ (and allowed again by fetchAllowed, the last override). */
function fetchForbidden(): Override {
  const { objects, message } = GLOBAL_FETCH;
  const entries = objects.map((object) => ({ object, property: "fetch", message }));
  return {
    comment: "Every file in src/: the global fetch (in every spelling) is used only where the last override of this file turns these off.",
    includes: ["src/**"],
    linter: {
      rules: {
        style: { noRestrictedGlobals: { level: "error", options: { deniedGlobals: { fetch: message } } } },
        nursery: { noJsRestrictedProperties: { level: "error", options: { entries } } },
      },
    },
  };
}

function fetchAllowed(): Override {
  return {
    comment:
      "The global fetch: SafeFetch (the one outbound chokepoint), provider adapters and the LLM client (hosts from configuration), browser code.",
    includes: GLOBAL_FETCH.allowedIn,
    linter: { rules: { style: { noRestrictedGlobals: "off" }, nursery: { noJsRestrictedProperties: "off" } } },
  };
}

/** The overrides, in Biome's order: where two match a file, the later one's options replace the earlier one's. */
export function boundaryOverrides(): Override[] {
  return [
    fetchForbidden(),
    restrictImports(
      "Every file in src/ (the overrides below repeat these entries: a later override replaces the rule's options).",
      ["src/**"],
      EVERY_FILE,
    ),
    ...FLOORS.map(floorOverride),
    ...browserOverrides(),
    restrictImports("A unit test beside its module: these rules in place of its folder's.", UNIT_TESTS.files, UNIT_TESTS.rules),
    fetchAllowed(),
  ];
}

/** Where biome.jsonc reads the overrides from (its `extends`). */
export const FILE = "test/lint/biome-boundaries.jsonc";

/** The text of FILE: where it comes from, then the overrides, each under its comment. */
export function boundariesConfig(): string {
  const overrides = boundaryOverrides().map(({ comment, ...override }) => `    // ${comment}\n    ${layout(override, "    ")}`);
  return [
    "// Written by `npm run lint:boundaries` from test/lint/boundaries.ts: edit the table there, then run it.",
    "// biome.jsonc extends this file: its own overrides come after these, and set other rules.",
    "{",
    '  "$schema": "../../node_modules/@biomejs/biome/configuration_schema.json",',
    '  "overrides": [',
    overrides.join(",\n"),
    "  ]",
    "}",
    "",
  ].join("\n");
}

const WIDTH = 140;

/** JSON laid out to read: a value stays on one line when it fits in WIDTH, else it takes one line per entry. */
function layout(value: unknown, indent: string): string {
  const flat = oneLine(value);
  if (indent.length + flat.length <= WIDTH || typeof value !== "object" || value === null) return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[\n${value.map((item) => inner + layout(item, inner)).join(",\n")}\n${indent}]`;
  const entries = Object.entries(value).map(([key, item]) => `${inner}${JSON.stringify(key)}: ${layout(item, inner)}`);
  return `{\n${entries.join(",\n")}\n${indent}}`;
}

function oneLine(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(oneLine).join(", ")}]`;
  if (typeof value === "object" && value !== null)
    return `{ ${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}: ${oneLine(item)}`)
      .join(", ")} }`;
  return JSON.stringify(value);
}
