/** Accounts: create one with its first key, list them, show one with its keys and audit trail. */
import * as q from "../accounts/queries.ts";
import { accountReport, accountReportText } from "../accounts/operator-view.ts";
import { accountView, createAccount } from "../accounts/service.ts";
import { auditOf } from "../accounts/status.ts";
import { ServiceError } from "../errors.ts";
import type { CliCommand } from "./command.ts";
import { number, required } from "./flags.ts";

export const createAccountCommand: CliCommand = {
  name: "accounts create",
  section: "Accounts and keys",
  usage: "accounts create --name NAME [--credit DOLLARS] [--limit PER_MIN] [--json]",
  summary: ["create an account and its first key (--limit: enterprise, calls/min >= 5000)"],
  details: [
    "Prints the account (plan, calls a minute, balance) and its API key, which is shown this once.",
    '`--json` prints `{"account_id": "...", "api_key": "..."}` and nothing else.',
    "`--credit` gives it a starting balance in dollars (a positive balance is the Pro plan); `--limit` makes an Enterprise",
    "account with that per-minute limit, a whole number from 5,000 to 1,000,000.",
  ].join("\n"),
  async run(cli) {
    const created = await createAccount(await cli.accounts(), {
      name: required(cli.flags.name, "--name"),
      creditDollars: number(cli.flags.credit, "--credit"),
      customRateLimit: number(cli.flags.limit, "--limit") ?? null,
    });
    if (cli.flags.json) cli.out(JSON.stringify({ account_id: created.account.id, api_key: created.secret }));
    else {
      const view = accountView(created.account);
      cli.out(
        `account ${view.id} "${view.name}": plan ${view.plan_label}, ${view.rate_limit_per_minute} calls/min, balance $${view.balance}`,
      );
      cli.out(`API key (shown once, store it now): ${created.secret}`);
    }
  },
};

export const listAccountsCommand: CliCommand = {
  name: "accounts list",
  section: "Accounts and keys",
  usage: "accounts list [--json]",
  summary: ["list accounts with plan and balance"],
  details: "One line per account: id, plan, calls a minute, balance and name. `--json` prints a JSON array of the accounts.",
  async run(cli) {
    const { db } = await cli.database();
    const rows = (await q.listAccounts(db)).map((a) => accountView(a));
    if (cli.flags.json) cli.out(JSON.stringify(rows));
    else
      for (const a of rows)
        cli.out(
          `${a.id}  ${a.plan.padEnd(10)} ${String(a.rate_limit_per_minute).padStart(7)}/min  $${a.balance.toFixed(2).padStart(10)}  ${a.name}`,
        );
  },
};

export const showAccountCommand: CliCommand = {
  name: "accounts show",
  section: "Accounts and keys",
  usage: "accounts show --account ID [--json]",
  summary: ["the account, its status, keys and audit trail (who, when, what, why)"],
  details: [
    "Prints the account (plan, balance, status with its reason and time), its keys (prefix, created, last used,",
    "revoked, expires; never a secret) and its audit trail, newest first. `--json` prints the same as one JSON object.",
    "An unknown account is `error: account <id> not found`, exit code 1.",
  ].join("\n"),
  async run(cli) {
    const { db } = await cli.database();
    const accountId = required(cli.flags.account, "--account");
    const account = await q.getAccount(db, accountId);
    if (!account) throw new ServiceError("not_found", `account ${accountId} not found`);
    const report = accountReport(account, await q.listKeys(db, accountId), await auditOf(db, accountId));
    cli.out(cli.flags.json ? JSON.stringify(report) : accountReportText(report).join("\n"));
  },
};
