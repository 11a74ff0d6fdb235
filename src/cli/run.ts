/**
 * One command line, start to end: parse the flags, find the command in the
 * table, give it a context that opens what it asks for, and turn what went
 * wrong into a message and an exit code (1: refused or misconfigured, 2: a
 * mistake in the command line, 3: the embedded database is the server's).
 */
import type { DatabaseHandle } from "../../db/client.ts";
import { EmbeddedClusterFailed } from "../../db/embedded-cluster.ts";
import { EmbeddedDatabaseBusy } from "../../db/embedded-lock.ts";
import { systemClock } from "../clock.ts";
import { ConfigError, loadConfig, type Config } from "../config.ts";
import { ServiceError } from "../errors.ts";
import type { CliContext } from "./command.ts";
import { COMMANDS, findCommand, SECTIONS } from "./commands.ts";
import { busyMessage, openForCli } from "./database.ts";
import { parseCommandLine, UsageError } from "./flags.ts";
import { helpText } from "./usage.ts";

const HELP = helpText(SECTIONS, COMMANDS);

const out = (text: string) => process.stdout.write(`${text}\n`);

async function runCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv);
  if (values.help) {
    out(HELP);
    return 0;
  }
  const found = findCommand(positionals);
  if ("unknown" in found) throw new UsageError(`unknown command "${found.unknown}"`);
  let config: Config | undefined;
  let opening: Promise<DatabaseHandle> | undefined;
  const cli: CliContext = {
    args: found.args,
    flags: values,
    config: () => (config ??= loadConfig(process.env)),
    database: () => (opening ??= openForCli(cli.config())),
    accounts: async () => ({ db: (await cli.database()).db, clock: systemClock }),
    help: () => HELP,
    out,
  };
  try {
    return (await found.command.run(cli)) ?? 0;
  } finally {
    // A database that failed to open has nothing to close; the failure is the command's.
    const handle = await opening?.catch(() => undefined);
    await handle?.close();
  }
}

const isParseError = (error: unknown) => error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS");

export async function runCommandLine(argv: string[]): Promise<number> {
  try {
    return await runCommand(argv);
  } catch (error) {
    if (error instanceof EmbeddedDatabaseBusy) {
      process.stderr.write(`${busyMessage(error, loadConfig(process.env).port)}\n`);
      return 3;
    }
    if (error instanceof UsageError || isParseError(error)) {
      process.stderr.write(`error: ${(error as Error).message}\n\n${HELP}`);
      return 2;
    }
    if (error instanceof ConfigError || error instanceof ServiceError || error instanceof EmbeddedClusterFailed) {
      process.stderr.write(`error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
