/**
 * The two reference pages written from the code: the CLI's from the command
 * table, the configuration's from EnvSchema. `npm run docs` writes them and
 * test/docs/generated.test.ts fails when a page differs from what this makes,
 * so a command or a variable is documented where it is defined, once.
 */
import type { TSchema } from "@sinclair/typebox";
import { EnvSchema } from "../config.ts";
import type { CliCommand, CliSection } from "./command.ts";
import { COMMANDS, SECTIONS } from "./commands.ts";
import { helpLines } from "./usage.ts";

export interface ReferencePage {
  /** From the repository's root. */
  path: string;
  text: string;
}

const generatedBy = (source: string) =>
  `<!-- Written by \`npm run docs\` from ${source}: edit that, then run it. test/docs/generated.test.ts checks this page. -->`;

/** A table cell: pipes would end it, newlines would end the row. */
const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

const CLI_INTRO = `# The CLI

${generatedBy("the command table in src/cli/commands.ts")}

The operator's command line: \`npm run cli -- <command> [options]\` (\`bun run cli <command>\` with Bun;
\`bun src/cli.ts <command>\` runs it directly, as on a [Fly machine](deploying.md#on-flyio)). \`npm run cli -- help\` prints the summary
of every command below, as each command's first block shows it.

It opens the same database as the server and calls the same verbs as the routes. On Postgres (\`DATABASE_URL\`) it
works beside a running server. The embedded database (PGlite) can be opened by one process at a time: while the server
runs, every command that needs the database says so and exits with code 3 without touching it. Get another key from
the running server instead, with a key you already have:

\`\`\`sh
curl -sS -X POST http://localhost:3000/v1/keys -H "X-API-Key: $CRITIQUE_API_KEY"
\`\`\`

or stop the server, or set \`DATABASE_URL\` so the server and the CLI share a Postgres database.

Exit codes: 0 done; 1 refused (an unknown account or key, a value the service does not accept) or an invalid
environment; 2 a mistake in the command line (an unknown command or flag, a missing or malformed flag), printed with
the help; 3 the embedded database is held by the running server. Every flag is accepted by every command and ignored
where it means nothing; \`--help\` (\`-h\`) after any command prints the help.`;

function commandEntry(command: CliCommand): string {
  // The help's own lines for the command, so the page shows what `npm run cli -- help` prints.
  const lines = [`### ${command.name}`, "", "```", ...helpLines(command).map((line) => line.slice(2)), "```"];
  if (command.details) lines.push("", command.details);
  return lines.join("\n");
}

function sectionEntry(section: CliSection): string {
  return [`## ${section}`, ...COMMANDS.filter((c) => c.section === section).map(commandEntry)].join("\n\n");
}

export function cliReference(): string {
  return `${[CLI_INTRO, ...SECTIONS.map(sectionEntry)].join("\n\n")}\n`;
}

const CONFIGURATION_INTRO = `# Configuration

${generatedBy("EnvSchema in src/config.ts")}

The service reads its settings from the environment once, at start, through one TypeBox schema (\`src/config.ts\`),
and passes them in; nothing else reads the environment. \`npm run cli -- config\` prints the same list.

- A bad value stops the start with a message naming the variable and what it must be; every problem is listed at
  once.
- An empty variable counts as unset (deploy tools often export \`NAME=\` for "nothing").
- Booleans read \`true\`, \`1\`, \`yes\`, \`on\` and \`false\`, \`0\`, \`no\`, \`off\`, in any case.
- Some settings go together: \`UPSTASH_REDIS_REST_URL\` and \`UPSTASH_REDIS_REST_TOKEN\` are set both or neither, and not
  with \`REDIS_URL\`; each provider in \`SEARCH_PROVIDERS\` other than \`local\` and \`wikipedia\` needs its URL or key
  (\`SEARXNG_URL\`, \`BRAVE_API_KEY\`, \`TAVILY_API_KEY\`, \`EXA_API_KEY\`); a language model needs \`LLM_MODEL\`, and
  \`LLM_PROVIDER=anthropic\` needs \`ANTHROPIC_API_KEY\`; \`WEB_CONCURRENCY\` above 1 needs \`DATABASE_URL\` and \`REDIS_URL\` (or
  Upstash).
- \`HTTP_PROXY\`, \`HTTPS_PROXY\` and \`ALL_PROXY\` (in either case) must not be set: page fetching connects to the
  addresses it has checked, and a proxy would resolve names itself.

"unset" in the default column: the variable has no default, and its meaning says what happens without it.`;

/** What a value must be, from the schema's own keywords. */
function accepted(schema: TSchema): string {
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.anyOf)) return (s.anyOf as { const: unknown }[]).map((o) => `\`${o.const}\``).join(", ");
  if (s.type === "boolean") return "`true` or `false`";
  if (s.type === "integer" || s.type === "number") {
    const kind = s.type === "integer" ? "integer" : "number";
    const low =
      typeof s.minimum === "number" ? `${s.minimum}` : typeof s.exclusiveMinimum === "number" ? `above ${s.exclusiveMinimum}` : null;
    const high = typeof s.maximum === "number" ? `${s.maximum}` : null;
    if (low !== null && high !== null) return `${kind}, ${low} to ${high}`;
    if (low !== null) return `${kind}, at least ${low}`;
    return kind;
  }
  if (typeof s.pattern === "string") return `matches \`${s.pattern}\``;
  if (typeof s.minLength === "number" && s.minLength > 1) return `at least ${s.minLength} characters`;
  if (typeof s.minLength === "number") return "not empty";
  return "any text";
}

function defaultOf(schema: TSchema): string {
  const s = schema as { default?: unknown; documentedDefault?: string };
  if (s.documentedDefault) return s.documentedDefault;
  if (s.default === undefined) return "unset";
  if (s.default === "") return "empty";
  return `\`${String(s.default)}\``;
}

export function configurationReference(): string {
  const rows = Object.entries(EnvSchema.properties).map(
    ([name, schema]) =>
      `| \`${name}\` | ${cell(defaultOf(schema))} | ${cell(accepted(schema))} | ${cell(String((schema as { description?: string }).description ?? ""))} |`,
  );
  return `${CONFIGURATION_INTRO}\n\n| variable | default | accepted | meaning |\n| --- | --- | --- | --- |\n${rows.join("\n")}\n`;
}

export function referencePages(): ReferencePage[] {
  return [
    { path: "docs/operate/cli.md", text: cliReference() },
    { path: "docs/operate/configuration.md", text: configurationReference() },
  ];
}
