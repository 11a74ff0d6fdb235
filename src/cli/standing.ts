/** An account's standing: suspend, ban and reinstate, each recorded in its audit trail under the operator's login. */
import { changeStatus, type StatusAction } from "../accounts/status.ts";
import { ServiceError } from "../errors.ts";
import type { CliCommand } from "./command.ts";
import { UsageError } from "./flags.ts";
import { required } from "./flags.ts";

/** "account not found" names the id the operator typed. */
const namedAccount = (accountId: string) => (error: unknown) => {
  if (error instanceof ServiceError && error.code === "not_found") throw new ServiceError("not_found", `account ${accountId} not found`);
  throw error;
};

function statusCommand(action: StatusAction, usage: string, summary: string[], details: string): CliCommand {
  return {
    name: `accounts ${action}`,
    section: "Accounts and keys",
    usage,
    summary,
    details,
    async run(cli) {
      const ctx = await cli.accounts();
      const accountId = required(cli.flags.account, "--account");
      if (action !== "reinstate" && !cli.flags.reason?.trim())
        throw new UsageError(`--reason is required to ${action}: the account's callers are shown it`);
      // The audit names who acted: the operator's login, as far as the shell knows it.
      const actor = `cli:${process.env.USER || "operator"}`;
      const account = await changeStatus(ctx, { accountId, action, reason: cli.flags.reason ?? null, actor }).catch(
        namedAccount(accountId),
      );
      cli.out(
        `account ${account.id} is now ${account.status}${account.statusReason ? ` (${account.statusReason})` : ""}; recorded as ${action} by ${actor}`,
      );
    },
  };
}

const RECORDED = "The audit trail records the change, its reason and who acted (`cli:` and the operator's `$USER`).";
const NOT_FOUND = "An unknown account is `error: account <id> not found`, exit code 1";

export const suspendCommand = statusCommand(
  "suspend",
  "accounts suspend --account ID --reason TEXT",
  ["refuse the account's keys and sessions (403, with the reason) and end its", "running calls; its published endpoints refuse calls"],
  `The reason (at most 500 characters) is shown to the account's callers. ${RECORDED} ${NOT_FOUND}; a missing \`--account\` or \`--reason\` is a usage error, exit code 2. See [Acceptable use](acceptable-use.md#suspending-and-banning-accounts).`,
);

export const reinstateCommand = statusCommand(
  "reinstate",
  "accounts reinstate --account ID [--reason TEXT]",
  ["make a suspended or banned account active again, at once"],
  `It also takes the account off a shared bucket that abuse throttling put it on. ${RECORDED} ${NOT_FOUND}.`,
);

export const banCommand = statusCommand(
  "ban",
  "accounts ban --account ID --reason TEXT",
  ["as suspend, for good (reinstate still undoes it)"],
  `The same refusal as a suspension, recorded as a ban. ${RECORDED} ${NOT_FOUND}; a missing \`--account\` or \`--reason\` is a usage error, exit code 2.`,
);
