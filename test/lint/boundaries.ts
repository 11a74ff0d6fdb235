/**
 * The import boundaries of src/ (docs/develop/architecture.md, "Dependencies point down")
 * and the global-fetch chokepoint, each written once.
 *
 * Biome gives a file the options of the last override that matches it: a later
 * override replaces noRestrictedImports' list of patterns, it does not add to
 * it. So each folder's override must repeat the rules that bind every file.
 * Here each rule is said once; `npm run lint:boundaries` writes the overrides,
 * repeats and all, as test/lint/biome-boundaries.jsonc, which biome.jsonc
 * extends. test/lint/boundaries.test.ts fails when that file is not what the
 * script writes, and lints probe files to prove each rule bites.
 *
 * Patterns are Biome's: gitignore-style globs over the import as written
 * (`../search/run.ts`), not over the file it resolves to; "!" allows again
 * what an earlier pattern forbade.
 */

/** The folders of src/. A test fails when src/ has a folder missing here: give it a floor below. */
export const FOLDERS = [
  "abuse",
  "accounts",
  "cli",
  "contents",
  "dashboard",
  "discovery",
  "endpoints",
  "http",
  "limits",
  "marketplace",
  "mcp",
  "observe",
  "openai",
  "ops",
  "research",
  "search",
  "tasks",
  "usage",
  "webhooks",
] as const;
export type Folder = (typeof FOLDERS)[number];

/** Imports a file may not make (noRestrictedImports patterns), and what Biome says when it does. */
export interface Forbidden {
  patterns: string[];
  message: string;
}

/** The files that compose the route files into the app and the process. */
export const COMPOSITION_ROOTS = ["src/app.ts", "src/main.ts", "src/cli.ts"];

/** The route files: Elysia plugins, composed only by the composition roots. */
export const ROUTE_FILES = ["routes.ts", "ws.ts"];

export const ROUTE_FILE: Forbidden = {
  patterns: [...ROUTE_FILES.map((name) => `**/${name}`), ...ROUTE_FILES.map((name) => `!./${name}`)],
  message:
    'A route file (routes.ts, ws.ts) is imported only by src/app.ts, main.ts and cli.ts: import the verb or the model it calls instead (docs/develop/architecture.md, "Dependencies point down").',
};

export const TEST_CODE: Forbidden = {
  patterns: ["**/test/**"],
  message: "Code in src/ imports nothing from test/ (only a *.test.ts beside its module may import test/helpers/).",
};

export const ABUSE: Forbidden = {
  patterns: ["**/abuse/**"],
  message:
    "Only the composition roots (src/app.ts, main.ts, cli.ts) import src/abuse/: it hears research calls through the hooks they wire (RunDeps.watch).",
};

/** The rules every file in src/ keeps, but those a floor is free of, and browser code and unit tests (rules of their own below). */
export const EVERY_FILE: Forbidden[] = [ROUTE_FILE, TEST_CODE, ABUSE];

/**
 * A floor of src/: its files and the folders of src/ they may import besides
 * their own. Every other folder is forbidden to them, with `message`, so a new
 * folder starts out forbidden to every floor that does not name it. abuse/ is
 * never named: ABUSE keeps it to the composition roots.
 */
export type Floor = {
  /** The comment above its override. */
  what: string;
  /** Its folders, or (for files outside any folder) `files`, as Biome globs. */
  folders?: Folder[];
  files?: string[];
  /** Rules of EVERY_FILE that do not bind it. */
  freeOf?: Forbidden[];
} & ({ mayImport: Folder[]; message: string } | { mayImport: "any" });

/** In the order of their overrides (where two match a file, the later one wins). */
export const FLOORS: Floor[] = [
  {
    what: "Kernels: src/*.ts other than the composition roots.",
    files: ["src/*.ts", ...COMPOSITION_ROOTS.map((file) => `!${file}`)],
    mayImport: [],
    message: "A kernel (src/*.ts) imports no feature folder and not http/: kernels sit at the bottom.",
  },
  {
    what: "The composition roots compose route files.",
    files: COMPOSITION_ROOTS,
    mayImport: "any",
    freeOf: [ROUTE_FILE, ABUSE],
  },
  {
    what: "The CLI's commands (the table src/cli.ts runs): the CLI process's composition root, so any verb, abuse/'s included.",
    folders: ["cli"],
    mayImport: "any",
    freeOf: [ABUSE],
  },
  {
    what: "observe/: the metrics catalogue and spans, which every floor above the kernels counts and traces with.",
    folders: ["observe"],
    mayImport: [],
    message: "src/observe/ imports no feature folder: every feature counts and traces through it, so it sits just above the kernels.",
  },
  {
    what: "http/",
    folders: ["http"],
    mayImport: ["observe"],
    message: "src/http/ imports no feature folder: kernels (src/*.ts), observe/ and db/ only; a feature passes in what http/ needs.",
  },
  {
    what: "limits/",
    folders: ["limits"],
    mayImport: ["observe", "http"],
    message: "src/limits/ is the lowest feature: it imports kernels, http/ and db/ only.",
  },
  {
    what: "accounts/",
    folders: ["accounts"],
    mayImport: ["observe", "http", "limits"],
    message: "src/accounts/ imports no face or feature above it (of the features it may import limits/ only).",
  },
  {
    what: "contents/",
    folders: ["contents"],
    mayImport: ["observe", "http"],
    message: "src/contents/ imports no face or feature above it, and not research/, accounts/ or limits/.",
  },
  {
    what: "research/",
    folders: ["research"],
    mayImport: ["observe", "http", "contents", "limits"],
    message: "src/research/ imports no face or feature above it (of the features it may import contents/ and limits/ only).",
  },
  {
    what: "The search faces.",
    folders: ["search"],
    mayImport: ["observe", "http", "accounts", "limits", "research", "usage"],
    message:
      "The search faces may import research/, http/, accounts/, limits/, usage/, db/ and kernels: never endpoints/, marketplace/, dashboard/ (nor contents/, discovery/, ops/, mcp/, abuse/).",
  },
  {
    what: "The OpenAI-compatible face, over the research run and the endpoints' and marketplace's calls.",
    folders: ["openai"],
    mayImport: ["observe", "http", "accounts", "limits", "research", "usage", "endpoints", "marketplace"],
    message:
      "The OpenAI-compatible face may import research/, endpoints/, marketplace/, http/, accounts/, limits/, usage/, db/ and kernels: never dashboard/ (nor contents/, discovery/, ops/, mcp/, abuse/, search/).",
  },
  {
    what: "Tasks: research run off the request path, over the research run and the endpoints' and marketplace's calls.",
    folders: ["tasks"],
    mayImport: ["observe", "http", "accounts", "limits", "research", "usage", "endpoints", "marketplace", "webhooks"],
    message:
      "src/tasks/ may import research/, endpoints/, marketplace/, webhooks/, http/, accounts/, limits/, usage/, db/ and kernels: never a face (search/, openai/, dashboard/, mcp/) nor contents/, discovery/, ops/, abuse/.",
  },
  {
    what: "Webhooks: signed deliveries to the URLs owners give, through the egress guard.",
    folders: ["webhooks"],
    mayImport: ["observe", "http", "accounts", "contents"],
    message:
      "src/webhooks/ may import contents/ (the egress guard), accounts/, http/, db/ and kernels: it knows nothing of what it delivers.",
  },
  {
    what: "The features between the faces and research/.",
    folders: ["endpoints", "marketplace", "usage", "discovery", "ops"],
    mayImport: ["observe", "http", "limits", "accounts", "contents", "research"],
    message: "A feature imports no face (search/, dashboard/, mcp/): faces call features, not the other way round.",
  },
  {
    what: "abuse/: limit-evasion detection, under the composition roots and above the features it acts through.",
    folders: ["abuse"],
    mayImport: ["observe", "http", "accounts", "limits"],
    message: "src/abuse/ imports no face or feature but accounts/ (the actions) and limits/ (the plans): the faces hand it what it counts.",
    freeOf: [ABUSE],
  },
  {
    what: "The dashboard's server part.",
    folders: ["dashboard"],
    mayImport: ["observe", "http", "accounts", "limits", "usage", "discovery", "ops"],
    message:
      "The dashboard calls the same /v1 routes as everyone: its server part imports no endpoints/, marketplace/, research/, search/, contents/ or mcp/.",
  },
  {
    what: "The MCP face, over the same verbs as the routes.",
    folders: ["mcp"],
    mayImport: "any",
  },
];

/**
 * The dashboard's browser code: only `packages` and modules inside `folder`,
 * in place of every rule above. Biome's patterns read the import as written,
 * so "inside" is said per depth: a file `d` folders below `folder` may go up
 * `d` folders, not `d + 1`. Below `depth` a file may not go up at all: raise
 * it when a folder needs it.
 */
export const BROWSER = {
  folder: "src/dashboard/web",
  packages: ["preact"],
  depth: 3,
  message: "Browser code imports only preact and modules inside src/dashboard/web/.",
};

/** A unit test beside its module: these rules in place of its folder's (the last override wins). */
export const UNIT_TESTS = {
  files: ["src/**/*.test.ts"],
  rules: [
    { patterns: ["**/test/**", "!**/test/helpers/**"], message: "A unit test in src/ may import test/helpers/ only." },
    {
      patterns: [...ROUTE_FILES, "app.ts", "main.ts"].map((name) => `**/${name}`),
      message: "A unit test beside its module starts no server: anything that needs app.ts, main.ts or a route file lives under test/.",
    },
  ] satisfies Forbidden[],
};

/** Outbound HTTP has one chokepoint: the global fetch, in every spelling, is forbidden in src/ but in `allowedIn`. */
export const GLOBAL_FETCH = {
  /** The objects it is also reached through, besides the bare name. */
  objects: ["globalThis", "window", "self", "Bun"],
  /** SafeFetch (the one outbound chokepoint), provider adapters and the LLM client (hosts from configuration), browser code. */
  allowedIn: [
    "src/contents/egress/**",
    "src/research/sources/**",
    "src/research/llm/**",
    "src/observe/otlp-exporter.ts",
    "src/dashboard/web/**",
  ],
  message:
    "Outbound HTTP goes through SafeFetch (src/contents/egress/, the one chokepoint). The global fetch is for SafeFetch, the provider adapters, the LLM client and the span exporter (src/research/sources/, src/research/llm/, src/observe/otlp-exporter.ts: hosts from configuration) and the browser code (src/dashboard/web/).",
};
