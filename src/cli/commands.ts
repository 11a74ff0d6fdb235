/** Every CLI command, in the order the help and the reference page list them. */
import { createAccountCommand, listAccountsCommand, showAccountCommand } from "./accounts.ts";
import { abuseReportCommand } from "./abuse.ts";
import type { CliCommand, CliSection } from "./command.ts";
import { addCreditCommand } from "./credit.ts";
import { migrateCommand } from "./database.ts";
import { configCommand, helpCommand } from "./help.ts";
import { createKeyCommand, listKeysCommand, revokeKeyCommand, rotateKeyCommand } from "./keys.ts";
import { indexCommand } from "./pages.ts";
import { setPasswordCommand, signInLinkCommand } from "./sign-in.ts";
import { banCommand, reinstateCommand, suspendCommand } from "./standing.ts";
import { listTasksCommand, showTaskCommand } from "./tasks.ts";

export const SECTIONS: CliSection[] = ["Accounts and keys", "Abuse", "Tasks", "Pages", "Database", "Help"];

export const COMMANDS: CliCommand[] = [
  createAccountCommand,
  listAccountsCommand,
  setPasswordCommand,
  suspendCommand,
  reinstateCommand,
  banCommand,
  showAccountCommand,
  signInLinkCommand,
  createKeyCommand,
  rotateKeyCommand,
  listKeysCommand,
  revokeKeyCommand,
  addCreditCommand,
  abuseReportCommand,
  listTasksCommand,
  showTaskCommand,
  indexCommand,
  migrateCommand,
  configCommand,
  helpCommand,
];

/**
 * The command a command line names: its first two words, or its first word
 * alone. Words past the name are the operands of a command that takes them
 * (`index URL...`) and otherwise left unread (`keys rotate KEY_ID`); a
 * one-word command without operands given more words is unknown
 * (`config extra`), as is a group on its own (`accounts`).
 */
export function findCommand(positionals: string[]): { command: CliCommand; args: string[] } | { unknown: string } {
  const [first, second, ...rest] = positionals;
  const named = `${first ?? "help"} ${second ?? ""}`.trim();
  const exact = COMMANDS.find((c) => c.name === named);
  if (exact) return { command: exact, args: exact.name.includes(" ") ? rest : positionals.slice(1) };
  const taking = COMMANDS.find((c) => c.operands && c.name === first);
  if (taking) return { command: taking, args: positionals.slice(1) };
  return { unknown: named };
}
