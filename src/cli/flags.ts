/**
 * The CLI's flags. One parser serves every command, so a flag any command
 * knows is accepted by all (and ignored where it means nothing); an unknown
 * flag is a usage error before any command runs.
 */
import { parseArgs } from "node:util";

/** A mistake in the command line: exit code 2, with the help after the message. */
export class UsageError extends Error {}

const OPTIONS = {
  name: { type: "string" },
  email: { type: "string" },
  credit: { type: "string" },
  limit: { type: "string" },
  account: { type: "string" },
  amount: { type: "string" },
  reason: { type: "string" },
  status: { type: "string" },
  task: { type: "string" },
  json: { type: "boolean", default: false },
  sitemap: { type: "string" },
  concurrency: { type: "string" },
  "max-age": { type: "string" },
  since: { type: "string" },
  "expires-in-days": { type: "string" },
  "grace-seconds": { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

export function parseCommandLine(argv: string[]) {
  return parseArgs({ args: argv, allowPositionals: true, strict: true, options: OPTIONS });
}

export type Flags = ReturnType<typeof parseCommandLine>["values"];

/** A numeric flag, or undefined when it was not given. */
export function number(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) throw new UsageError(`${flag} must be a number (got "${value}")`);
  return n;
}

export function required(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`${flag} is required`);
  return value;
}
