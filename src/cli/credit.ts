/** Credit: the operator's stand-in for payment. */
import { accountView, addCredit } from "../accounts/service.ts";
import type { CliCommand } from "./command.ts";
import { number, required } from "./flags.ts";

export const addCreditCommand: CliCommand = {
  name: "credit add",
  section: "Accounts and keys",
  usage: "credit add --account ID --amount DOLLARS",
  summary: ["add credit (a positive balance is the Pro plan)"],
  details: "Prints the new balance and plan. Adding credit to a Free account upgrades it to Pro at once.",
  async run(cli) {
    const account = await addCredit(
      await cli.accounts(),
      required(cli.flags.account, "--account"),
      number(required(cli.flags.amount, "--amount"), "--amount")!,
    );
    const view = accountView(account);
    cli.out(`account ${view.id}: balance $${view.balance.toFixed(2)}, plan ${view.plan_label} (${view.rate_limit_per_minute} calls/min)`);
  },
};
