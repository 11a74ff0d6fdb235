/**
 * The import boundaries, the fetch chokepoint and the cycle rule bite: the
 * installed Biome lints small probe files laid out as src/ is, under a copy of
 * the project's configuration, so each folder's override applies by path.
 * The probes with written-out expectations say each rule of
 * test/lint/boundaries.ts once (remove a rule and one fails); the matrix below
 * them checks every floor against every folder as the table says; and the
 * configuration Biome reads must be what `npm run lint:boundaries` writes.
 *
 * Probes live in a temporary folder, not on standard input: in stdin mode
 * Biome prints no diagnostics at all (by design since 1.9), so a probe there
 * could not tell a boundary diagnostic from any other failure. One Biome run
 * lints every probe.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { root } from "../helpers/process.ts";
import { boundariesConfig, FILE } from "./biome-boundaries.ts";
import { ABUSE, FLOORS, FOLDERS, type Floor, type Folder } from "./boundaries.ts";

interface Diagnostic {
  category: string;
  message: string;
  severity: string;
  location: { path?: string; start?: { line: number } };
}

const IMPORTS = "lint/style/noRestrictedImports";
const CYCLES = "lint/suspicious/noImportCycles";

/** The probes: a path inside src/ and its source. Every import is used, so only the rules under test can speak. */
const PROBES: Record<string, string> = {
  "src/http/cross-feature.ts": `import { findSession } from "../dashboard/sessions.ts";\nexport const probe = findSession;\n`,
  "src/http/kernel.ts": `import { ServiceError } from "../errors.ts";\nimport { client } from "../../db/client.ts";\nexport const probe = [ServiceError, client];\n`,
  "src/marketplace/route-file.ts": `import { userServiceRoutes } from "../endpoints/runtime/routes.ts";\nexport const probe = userServiceRoutes;\n`,
  "src/mcp/socket-file.ts": `import { searchSocket } from "../search/ws.ts";\nexport const probe = searchSocket;\n`,
  "src/marketplace/feature.ts": `import { publish } from "../endpoints/service.ts";\nexport const probe = publish;\n`,
  "src/research/face.ts": `import { collect } from "../search/run.ts";\nexport const probe = collect;\n`,
  "src/research/below.ts": `import { SafeFetch } from "../contents/egress/safe-fetch.ts";\nimport { planFor } from "../limits/plans.ts";\nexport const probe = [SafeFetch, planFor];\n`,
  "src/research/watches.ts": `import { AbuseDetector } from "../abuse/detector.ts";\nexport const probe = AbuseDetector;\n`,
  "src/abuse/above.ts": `import { publish } from "../endpoints/service.ts";\nexport const probe = publish;\n`,
  "src/abuse/below.ts": `import { changeStatus } from "../accounts/status.ts";\nimport { planFor } from "../limits/plans.ts";\nimport { clientAddress } from "../http/client-address.ts";\nexport const probe = [changeStatus, planFor, clientAddress];\n`,
  "src/search/allowed.ts": `import { runResearch } from "../research/engine.ts";\nimport { auth } from "../http/auth.ts";\nexport const probe = [runResearch, auth];\n`,
  "src/search/endpoints.ts": `import { designEndpoint } from "../endpoints/design/designer.ts";\nexport const probe = designEndpoint;\n`,
  "src/limits/above.ts": `import { getAccount } from "../accounts/queries.ts";\nexport const probe = getAccount;\n`,
  "src/accounts/above.ts": `import { priceOf } from "../usage/recorder.ts";\nexport const probe = priceOf;\n`,
  "src/accounts/below.ts": `import { planFor } from "../limits/plans.ts";\nimport { auth } from "../http/auth.ts";\nexport const probe = [planFor, auth];\n`,
  "src/contents/above.ts": `import { planFor } from "../limits/plans.ts";\nexport const probe = planFor;\n`,
  "src/usage/face.ts": `import { tools } from "../mcp/tools.ts";\nexport const probe = tools;\n`,
  "src/endpoints/features.ts": `import { publishVersion } from "../marketplace/service.ts";\nimport { runResearch } from "../research/engine.ts";\nexport const probe = [publishVersion, runResearch];\n`,
  "src/dashboard/research.ts": `import { runResearch } from "../research/engine.ts";\nexport const probe = runResearch;\n`,
  "src/dashboard/accounts.ts": `import { findSession } from "../accounts/sessions.ts";\nimport { usageReport } from "../usage/report.ts";\nexport const probe = [findSession, usageReport];\n`,
  "src/mcp/anything.ts": `import { runResearch } from "../research/engine.ts";\nimport { findSession } from "../dashboard/sessions.ts";\nexport const probe = [runResearch, findSession];\n`,
  "src/app-kernel.ts": `import { accountRoutes } from "./accounts/routes.ts";\nexport const probe = accountRoutes;\n`,
  "src/kernel.ts": `import { auth } from "./http/auth.ts";\nimport { ServiceError } from "./errors.ts";\nexport const probe = [auth, ServiceError];\n`,
  "src/app.ts": `import { accountRoutes } from "./accounts/routes.ts";\nimport { searchRoutes } from "./search/routes.ts";\nexport const probe = [accountRoutes, searchRoutes];\n`,
  "src/main.ts": `import { minimalPdf } from "../test/helpers/fixtures/pdf.ts";\nexport const probe = minimalPdf;\n`,
  "src/dashboard/web/escapes.tsx": `import { findSession } from "../sessions.ts";\nexport const probe = findSession;\n`,
  "src/dashboard/web/inside.tsx": `import { render } from "preact";\nimport { api } from "./api.ts";\nexport const probe = [render, api];\n`,
  "src/dashboard/web/pages/escapes.tsx": `import { findSession } from "../../sessions.ts";\nexport const probe = findSession;\n`,
  "src/dashboard/web/pages/inside.tsx": `import { useState } from "preact/hooks";\nimport { api } from "../api.ts";\nexport const probe = [useState, api];\n`,
  "src/dashboard/web/pages/keys/escapes.tsx": `import { findSession } from "../../../sessions.ts";\nexport const probe = findSession;\n`,
  "src/dashboard/web/pages/keys/inside.tsx": `import { api } from "../../api.ts";\nexport const probe = api;\n`,
  "src/dashboard/web/pages/keys/list/escapes.tsx": `import { findSession } from "../../../../sessions.ts";\nexport const probe = findSession;\n`,
  "src/dashboard/web/pages/keys/list/inside.tsx": `import { api } from "../../../api.ts";\nexport const probe = api;\n`,
  "src/dashboard/web/pages/keys/list/row/escapes.tsx": `import { api } from "../../../../api.ts";\nexport const probe = api;\n`,
  "src/dashboard/web/pages/keys/list/row/inside.tsx": `import { Row } from "./cells.tsx";\nexport const probe = Row;\n`,
  "src/contents/extract/uses-fixture.ts": `import { minimalPdf } from "../../../test/helpers/fixtures/pdf.ts";\nexport const probe = minimalPdf;\n`,
  "src/contents/extract/uses-fixture.test.ts": `import { minimalPdf } from "../../../test/helpers/fixtures/pdf.ts";\nexport const probe = minimalPdf;\n`,
  "src/contents/extract/uses-e2e.test.ts": `import { signIn } from "../../../test/e2e/sign-in.ts";\nexport const probe = signIn;\n`,
  "src/search/starts-server.test.ts": `import { searchRoutes } from "./routes.ts";\nimport { buildApp } from "../app.ts";\nimport { main } from "../main.ts";\nexport const probe = [searchRoutes, buildApp, main];\n`,
  // Two modules that need only each other's types: a cycle all the same.
  "src/research/cycle-question.ts": `import type { Answer } from "./cycle-answer.ts";\nexport interface Question { answer?: Answer }\n`,
  "src/research/cycle-answer.ts": `import type { Question } from "./cycle-question.ts";\nexport interface Answer { question?: Question }\n`,
  "src/endpoints/fetches.ts": [
    "export async function probe(url: string) {",
    "  const a = await fetch(url);",
    "  const b = globalThis.fetch(url);",
    "  const c = fetch;",
    "  return [a, b, c];",
    "}",
    "",
  ].join("\n"),
  "src/contents/egress/fetches.ts": [
    "export async function probe(url: string) {",
    "  const a = await fetch(url);",
    "  const b = globalThis.fetch(url);",
    "  const c = fetch;",
    "  return [a, b, c];",
    "}",
    "",
  ].join("\n"),
  // The words in strings and comments, a method named fetch, and a parameter named fetch are not the global.
  "src/discovery/mentions.ts": [
    "// fetch(url) is what a client writes",
    'export const snippet = "const r = await fetch(url);";',
    "export const template = `await fetch(${JSON.stringify(snippet)})`;",
    "export const server = { fetch: (request: Request) => new Response(request.url) };",
    "export const call = (fetcher: { fetch(u: string): unknown }, fetch: (u: string) => unknown) => [fetcher.fetch(snippet), fetch(snippet)];",
    "",
  ].join("\n"),
};

/** A composition root importing a module of every folder of src/ (they compose all of them). */
PROBES["src/cli.ts"] =
  `${FOLDERS.map((folder, i) => `import { probe as p${i} } from "./${folder}/routes.ts";`).join("\n")}\nexport const probe = [${FOLDERS.map((_, i) => `p${i}`).join(", ")}];\n`;

/** The matrix: from each folder of each floor (and from a kernel), an import of a module in every folder of src/. */
const MATRIX = FLOORS.flatMap((floor) => {
  const homes =
    floor.folders?.map((folder) => ({ at: `src/${folder}/imports-`, up: "../" })) ??
    (floor.files?.includes("src/*.ts") ? [{ at: "src/kernel-imports-", up: "./" }] : []);
  return homes.flatMap(({ at, up }) =>
    FOLDERS.map((target) => ({
      path: `${at}${target}.ts`,
      source: `import { probe as p } from "${up}${target}/module.ts";\nexport const probe = p;\n`,
      floor,
      target,
    })),
  );
});
for (const { path, source } of MATRIX) PROBES[path] = source;

/** What the table says of a floor importing `target`: nothing, or the message of the one rule that forbids it. */
function verdict(floor: Floor, target: Folder): string[] {
  if (target === "abuse") return floor.freeOf?.includes(ABUSE) ? [] : [`1: ${IMPORTS}: ${ABUSE.message}`];
  if (floor.mayImport === "any" || floor.mayImport.includes(target) || floor.folders?.includes(target)) return [];
  return [`1: ${IMPORTS}: ${floor.message}`];
}

let dir = "";
const byFile = new Map<string, Diagnostic[]>();

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "lint-boundaries-"));
  for (const file of ["biome.jsonc", FILE]) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(root, file), join(dir, file));
  }
  for (const [path, source] of Object.entries(PROBES)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  const run = Bun.spawnSync(
    [
      process.execPath,
      join(root, "node_modules/@biomejs/biome/bin/biome"),
      "lint",
      "--reporter=json",
      "--max-diagnostics=none",
      "--vcs-enabled=false",
      "src",
    ],
    { cwd: dir, stdout: "pipe", stderr: "pipe" },
  );
  const out = run.stdout.toString();
  if (!out.trim().startsWith("{"))
    throw new Error(`biome printed no report (exit ${run.exitCode}): ${run.stderr.toString().slice(0, 2000)}`);
  const report = JSON.parse(out) as { diagnostics: Diagnostic[] };
  for (const d of report.diagnostics) {
    const path = d.location.path ?? "";
    byFile.set(path, [...(byFile.get(path) ?? []), d]);
  }
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A probe's diagnostics as "line: category: message" strings, sorted (two on one line come in no fixed order). */
function findings(path: string): string[] {
  expect(PROBES[path]).toBeDefined();
  return (byFile.get(path) ?? [])
    .sort((a, b) => (a.location.start?.line ?? 0) - (b.location.start?.line ?? 0) || a.message.localeCompare(b.message))
    .map((d) => `${d.location.start?.line}: ${d.category}: ${d.message}`);
}

const ROUTE_FILE_MESSAGE = `1: ${IMPORTS}: A route file (routes.ts, ws.ts) is imported only by src/app.ts, main.ts and cli.ts: import the verb or the model it calls instead (docs/develop/architecture.md, "Dependencies point down").`;
const BROWSER_MESSAGE = `1: ${IMPORTS}: Browser code imports only preact and modules inside src/dashboard/web/.`;

describe("import boundaries", () => {
  test("src/http/ importing a feature folder fails", () => {
    expect(findings("src/http/cross-feature.ts")).toEqual([
      `1: ${IMPORTS}: src/http/ imports no feature folder: kernels (src/*.ts), observe/ and db/ only; a feature passes in what http/ needs.`,
    ]);
  });

  test("src/http/ importing a kernel and db/ passes", () => {
    expect(findings("src/http/kernel.ts")).toEqual([]);
  });

  test("a feature importing another feature's route file fails; its verbs pass", () => {
    expect(findings("src/marketplace/route-file.ts")).toEqual([ROUTE_FILE_MESSAGE]);
    expect(findings("src/marketplace/feature.ts")).toEqual([]);
  });

  test("the socket route file (ws.ts) is a route file too", () => {
    expect(findings("src/mcp/socket-file.ts")).toEqual([ROUTE_FILE_MESSAGE]);
  });

  test("src/limits/ imports no feature; src/accounts/ imports limits/ and http/, no feature above it", () => {
    expect(findings("src/limits/above.ts")).toEqual([
      `1: ${IMPORTS}: src/limits/ is the lowest feature: it imports kernels, http/ and db/ only.`,
    ]);
    expect(findings("src/accounts/above.ts")).toEqual([
      `1: ${IMPORTS}: src/accounts/ imports no face or feature above it (of the features it may import limits/ only).`,
    ]);
    expect(findings("src/accounts/below.ts")).toEqual([]);
  });

  test("src/contents/ imports neither limits/ nor accounts/", () => {
    expect(findings("src/contents/above.ts")).toEqual([
      `1: ${IMPORTS}: src/contents/ imports no face or feature above it, and not research/, accounts/ or limits/.`,
    ]);
  });

  test("a feature imports no face; it imports other features and research/", () => {
    expect(findings("src/usage/face.ts")).toEqual([
      `1: ${IMPORTS}: A feature imports no face (search/, dashboard/, mcp/): faces call features, not the other way round.`,
    ]);
    expect(findings("src/endpoints/features.ts")).toEqual([]);
  });

  test("the dashboard's server part imports no research/; accounts/ and usage/ pass", () => {
    expect(findings("src/dashboard/research.ts")).toHaveLength(1);
    expect(findings("src/dashboard/research.ts")[0]).toStartWith(`1: ${IMPORTS}: The dashboard calls the same /v1 routes as everyone`);
    expect(findings("src/dashboard/accounts.ts")).toEqual([]);
  });

  test("the MCP face may import any folder", () => {
    expect(findings("src/mcp/anything.ts")).toEqual([]);
  });

  test("src/research/ importing a face fails; contents/ and limits/ below it pass", () => {
    expect(findings("src/research/face.ts")).toEqual([
      `1: ${IMPORTS}: src/research/ imports no face or feature above it (of the features it may import contents/ and limits/ only).`,
    ]);
    expect(findings("src/research/below.ts")).toEqual([]);
  });

  test("only the composition roots import src/abuse/; it imports accounts/, limits/ and http/, no feature above", () => {
    expect(findings("src/research/watches.ts")).toEqual([
      `1: ${IMPORTS}: Only the composition roots (src/app.ts, main.ts, cli.ts) import src/abuse/: it hears research calls through the hooks they wire (RunDeps.watch).`,
    ]);
    expect(findings("src/abuse/above.ts")).toEqual([
      `1: ${IMPORTS}: src/abuse/ imports no face or feature but accounts/ (the actions) and limits/ (the plans): the faces hand it what it counts.`,
    ]);
    expect(findings("src/abuse/below.ts")).toEqual([]);
  });

  test("the search faces may import research/ and http/, never endpoints/", () => {
    expect(findings("src/search/allowed.ts")).toEqual([]);
    expect(findings("src/search/endpoints.ts")).toHaveLength(1);
    expect(findings("src/search/endpoints.ts")[0]).toStartWith(`1: ${IMPORTS}: The search faces may import research/`);
  });

  test("a kernel importing a feature or http/ fails; the composition roots import route files, and every folder", () => {
    const KERNEL = `1: ${IMPORTS}: A kernel (src/*.ts) imports no feature folder and not http/: kernels sit at the bottom.`;
    expect(findings("src/app-kernel.ts")).toEqual([KERNEL, ROUTE_FILE_MESSAGE]);
    expect(findings("src/kernel.ts")).toEqual([KERNEL]);
    expect(findings("src/app.ts")).toEqual([]);
    expect(findings("src/cli.ts")).toEqual([]);
  });

  test("browser code imports only preact and modules inside src/dashboard/web/, at every depth", () => {
    for (const folder of ["", "pages/", "pages/keys/", "pages/keys/list/"]) {
      expect(findings(`src/dashboard/web/${folder}escapes.tsx`)).toEqual([BROWSER_MESSAGE]);
      expect(findings(`src/dashboard/web/${folder}inside.tsx`)).toEqual([]);
    }
  });

  test("browser code deeper than the table's depth may not import upwards at all, not even inside web/", () => {
    expect(findings("src/dashboard/web/pages/keys/list/row/escapes.tsx")).toEqual([BROWSER_MESSAGE]);
    expect(findings("src/dashboard/web/pages/keys/list/row/inside.tsx")).toEqual([]);
  });

  test("src/ imports test/ only from a unit test beside its module, and only test/helpers/", () => {
    const NO_TEST = `1: ${IMPORTS}: Code in src/ imports nothing from test/ (only a *.test.ts beside its module may import test/helpers/).`;
    expect(findings("src/contents/extract/uses-fixture.ts")).toEqual([NO_TEST]);
    expect(findings("src/main.ts")).toEqual([NO_TEST]);
    expect(findings("src/contents/extract/uses-fixture.test.ts")).toEqual([]);
    expect(findings("src/contents/extract/uses-e2e.test.ts")).toEqual([
      `1: ${IMPORTS}: A unit test in src/ may import test/helpers/ only.`,
    ]);
  });

  test("a unit test beside its module imports no route file and not app.ts or main.ts", () => {
    const NO_SERVER = `${IMPORTS}: A unit test beside its module starts no server: anything that needs app.ts, main.ts or a route file lives under test/.`;
    expect(findings("src/search/starts-server.test.ts")).toEqual([`1: ${NO_SERVER}`, `2: ${NO_SERVER}`, `3: ${NO_SERVER}`]);
  });

  test("each floor imports exactly the folders test/lint/boundaries.ts lets it", () => {
    const said = Object.fromEntries(MATRIX.map(({ path }) => [path, findings(path)]));
    const meant = Object.fromEntries(MATRIX.map(({ path, floor, target }) => [path, verdict(floor, target)]));
    expect(said).toEqual(meant);
    expect(MATRIX.length).toBeGreaterThan(FOLDERS.length * FOLDERS.length);
  });
});

describe("import cycles", () => {
  test("two modules importing only each other's types are a cycle", () => {
    expect(findings("src/research/cycle-question.ts")).toEqual([`1: ${CYCLES}: This import is part of a cycle.`]);
    expect(findings("src/research/cycle-answer.ts")).toEqual([`1: ${CYCLES}: This import is part of a cycle.`]);
  });
});

describe("the boundaries are declared once", () => {
  test("biome.jsonc extends the overrides `npm run lint:boundaries` writes, as it writes them", () => {
    expect(readFileSync(join(root, "biome.jsonc"), "utf8")).toContain(`"extends": ["./${FILE}"]`);
    expect(readFileSync(join(root, FILE), "utf8")).toBe(boundariesConfig());
  });

  test("every folder of src/ stands on one floor", () => {
    const folders = readdirSync(join(root, "src"), { withFileTypes: true }).filter((entry) => entry.isDirectory());
    expect(folders.map((entry) => entry.name).sort()).toEqual([...FOLDERS].sort());
    expect(FLOORS.flatMap((floor) => floor.folders ?? []).sort()).toEqual([...FOLDERS].sort());
  });
});

describe("the global fetch is the egress module's (and the adapters' and the browser's)", () => {
  test("fetch(...), await fetch, globalThis.fetch(...) and a bare reference fail in src/endpoints/", () => {
    expect(findings("src/endpoints/fetches.ts")).toEqual([
      "2: lint/style/noRestrictedGlobals: Do not use the global variable fetch.",
      "3: lint/nursery/noJsRestrictedProperties: Do not use 'globalThis.fetch'.",
      "4: lint/style/noRestrictedGlobals: Do not use the global variable fetch.",
    ]);
  });

  test("the same calls pass in src/contents/egress/", () => {
    expect(findings("src/contents/egress/fetches.ts")).toEqual([]);
  });

  test("fetch in strings, comments, templates, a method or a parameter named fetch is not the global", () => {
    expect(findings("src/discovery/mentions.ts")).toEqual([]);
  });
});
