/**
 * What a CLI command is: a name, the line of help and reference it shows, and
 * a run that reads its flags and prints. The table of them (commands.ts) is
 * the CLI's dispatch, its help text and its reference page at once.
 */
import type { DatabaseHandle } from "../../db/client.ts";
import type { AccountsContext } from "../accounts/context.ts";
import type { Config } from "../config.ts";
import type { Flags } from "./flags.ts";

export interface CliContext {
  /** The positionals after the command's name (`keys rotate KEY_ID`: [KEY_ID]). */
  args: string[];
  flags: Flags;
  /** The environment, parsed on the first call: help and config run on a broken one. */
  config(): Config;
  /** The server's database, opened and migrated on the first call and closed after the command. */
  database(): Promise<DatabaseHandle>;
  /** What the accounts verbs take: that database and the system clock (the CLI has no key cache to evict). */
  accounts(): Promise<AccountsContext>;
  /** The help text, made from the command table. */
  help(): string;
  /** One line (or several, joined) on standard output. */
  out(text: string): void;
}

export interface CliCommand {
  /** One or two words: `config`, `keys rotate`. */
  name: string;
  /** The section of the help and the reference page it is listed under. */
  section: CliSection;
  /** The command with its operands and flags, as the help shows it. */
  usage: string;
  /** What it does, in the help's words: one string per help line. */
  summary: string[];
  /** More for the reference page (Markdown): outputs, exit codes, examples. */
  details?: string;
  /** Takes operands after its name (`index URL...`); other commands refuse extra words as an unknown command. */
  operands?: true;
  /** Its exit code; none is 0. */
  run(cli: CliContext): Promise<number | void> | number | void;
}

export type CliSection = "Accounts and keys" | "Abuse" | "Tasks" | "Pages" | "Database" | "Help";
