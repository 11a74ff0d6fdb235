/**
 * The import boundaries and the fetch chokepoint in biome.jsonc bite: the
 * installed Biome lints small probe files laid out as src/ is, under a copy of
 * the project's configuration, so each folder's override applies by path.
 *
 * Probes live in a temporary folder, not on standard input: in stdin mode
 * Biome prints no diagnostics at all (by design since 1.9), so a probe there
 * could not tell a boundary diagnostic from any other failure. One Biome run
 * lints every probe.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { root } from "../helpers/process.ts";

interface Diagnostic {
  category: string;
  message: string;
  severity: string;
  location: { path?: string; start?: { line: number } };
}

/** The probes: a path inside src/ and its source. Every import is used, so only the rules under test can speak. */
const PROBES: Record<string, string> = {
  "src/http/cross-feature.ts": `import { findSession } from "../dashboard/sessions.ts";\nexport const probe = findSession;\n`,
  "src/http/kernel.ts": `import { ServiceError } from "../errors.ts";\nimport { client } from "../../db/client.ts";\nexport const probe = [ServiceError, client];\n`,
  "src/marketplace/route-file.ts": `import { runCall } from "../endpoints/service-routes.ts";\nexport const probe = runCall;\n`,
  "src/marketplace/feature.ts": `import { publish } from "../endpoints/service.ts";\nexport const probe = publish;\n`,
  "src/research/face.ts": `import { collect } from "../search/run.ts";\nexport const probe = collect;\n`,
  "src/research/below.ts": `import { SafeFetch } from "../contents/egress/safe-fetch.ts";\nimport { planFor } from "../limits/plans.ts";\nexport const probe = [SafeFetch, planFor];\n`,
  "src/research/watches.ts": `import { AbuseDetector } from "../abuse/detector.ts";\nexport const probe = AbuseDetector;\n`,
  "src/abuse/above.ts": `import { publish } from "../endpoints/service.ts";\nexport const probe = publish;\n`,
  "src/abuse/below.ts": `import { changeStatus } from "../accounts/status.ts";\nimport { planFor } from "../limits/plans.ts";\nimport { clientAddress } from "../http/client-address.ts";\nexport const probe = [changeStatus, planFor, clientAddress];\n`,
  "src/search/allowed.ts": `import { runResearch } from "../research/engine.ts";\nimport { auth } from "../http/auth.ts";\nexport const probe = [runResearch, auth];\n`,
  "src/search/endpoints.ts": `import { designEndpoint } from "../endpoints/design/designer.ts";\nexport const probe = designEndpoint;\n`,
  "src/app-kernel.ts": `import { accountRoutes } from "./accounts/routes.ts";\nexport const probe = accountRoutes;\n`,
  "src/app.ts": `import { accountRoutes } from "./accounts/routes.ts";\nimport { searchRoutes } from "./search/routes.ts";\nexport const probe = [accountRoutes, searchRoutes];\n`,
  "src/dashboard/web/pages/escapes.tsx": `import { findSession } from "../../sessions.ts";\nexport const probe = findSession;\n`,
  "src/dashboard/web/pages/inside.tsx": `import { useState } from "preact/hooks";\nimport { api } from "../api.ts";\nexport const probe = [useState, api];\n`,
  "src/contents/extract/uses-fixture.ts": `import { minimalPdf } from "../../../test/helpers/fixtures/pdf.ts";\nexport const probe = minimalPdf;\n`,
  "src/contents/extract/uses-fixture.test.ts": `import { minimalPdf } from "../../../test/helpers/fixtures/pdf.ts";\nexport const probe = minimalPdf;\n`,
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

let dir = "";
const byFile = new Map<string, Diagnostic[]>();

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "lint-boundaries-"));
  copyFileSync(join(root, "biome.jsonc"), join(dir, "biome.jsonc"));
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

/** A probe's diagnostics as "category: message" lines, sorted by line. */
function findings(path: string): string[] {
  expect(PROBES[path]).toBeDefined();
  return (byFile.get(path) ?? [])
    .sort((a, b) => (a.location.start?.line ?? 0) - (b.location.start?.line ?? 0))
    .map((d) => `${d.location.start?.line}: ${d.category}: ${d.message}`);
}

const IMPORTS = "lint/style/noRestrictedImports";

describe("import boundaries", () => {
  test("src/http/ importing a feature folder fails", () => {
    expect(findings("src/http/cross-feature.ts")).toEqual([
      `1: ${IMPORTS}: src/http/ imports no feature folder: kernels (src/*.ts) and db/ only; a feature passes in what http/ needs.`,
    ]);
  });

  test("src/http/ importing a kernel and db/ passes", () => {
    expect(findings("src/http/kernel.ts")).toEqual([]);
  });

  test("a feature importing another feature's route file fails; its verbs pass", () => {
    expect(findings("src/marketplace/route-file.ts")).toEqual([
      `1: ${IMPORTS}: A route file (routes.ts, service-routes.ts, ws.ts) is imported only by src/app.ts, main.ts and cli.ts: import the verb or the model it calls instead (ARCHITECTURE.md, "Dependencies point down").`,
    ]);
    expect(findings("src/marketplace/feature.ts")).toEqual([]);
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

  test("a kernel importing a feature fails; the composition root imports route files", () => {
    expect(findings("src/app-kernel.ts").map((f) => f.split(": ").slice(0, 2).join(": "))).toEqual([`1: ${IMPORTS}`, `1: ${IMPORTS}`]);
    expect(findings("src/app.ts")).toEqual([]);
  });

  test("browser code imports only preact and modules inside src/dashboard/web/", () => {
    expect(findings("src/dashboard/web/pages/escapes.tsx")).toEqual([
      `1: ${IMPORTS}: Browser code imports only preact and modules inside src/dashboard/web/.`,
    ]);
    expect(findings("src/dashboard/web/pages/inside.tsx")).toEqual([]);
  });

  test("src/ imports test/ only from a unit test beside its module, and only test/helpers/", () => {
    expect(findings("src/contents/extract/uses-fixture.ts")).toEqual([
      `1: ${IMPORTS}: Code in src/ imports nothing from test/ (only a *.test.ts beside its module may import test/helpers/).`,
    ]);
    expect(findings("src/contents/extract/uses-fixture.test.ts")).toEqual([]);
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
