/** The dashboard sign-in of an account made here: a password set from standard input, or a one-time link for its owner. */
import { mintSignInLink, signInLinkUrl } from "../accounts/sign-in-links.ts";
import { setPassword } from "../accounts/sign-in.ts";
import { localBaseUrl } from "../http/base-url.ts";
import type { CliCommand } from "./command.ts";
import { required } from "./flags.ts";

export const setPasswordCommand: CliCommand = {
  name: "accounts password",
  section: "Accounts and keys",
  usage: "accounts password --account ID --email EMAIL",
  summary: ["set the dashboard sign-in; the password is read from standard input"],
  details: [
    "The password (at least 10 characters) comes from standard input, so it is in no argument list or shell history:",
    "",
    "```sh",
    "printf '%s' \"$PASSWORD\" | npm run cli -- accounts password --account acct_… --email you@example.com",
    "```",
  ].join("\n"),
  async run(cli) {
    const { db } = await cli.database();
    // From standard input, so the password is in no argument list or shell history.
    const password = (await new Response(Bun.stdin.stream()).text()).replace(/\r?\n$/, "");
    const account = await setPassword(db, required(cli.flags.account, "--account"), required(cli.flags.email, "--email"), password);
    cli.out(`account ${account.id} can now sign in to the dashboard as ${account.email}`);
  },
};

export const signInLinkCommand: CliCommand = {
  name: "accounts sign-in-link",
  section: "Accounts and keys",
  usage: "accounts sign-in-link --account ID",
  summary: ["print a one-time link (15 minutes) where the owner sets", "the dashboard email and password"],
  details: [
    "The link works once, for 15 minutes, and uses `PUBLIC_BASE_URL` when it is set, else the local address.",
    "Links made earlier stay as they were. See [the dashboard](dashboard.md#first-start-the-dashboard-and-a-one-time-sign-in-link).",
  ].join("\n"),
  async run(cli) {
    const ctx = await cli.accounts();
    const config = cli.config();
    const accountId = required(cli.flags.account, "--account");
    const link = await mintSignInLink(ctx, accountId);
    const base = config.publicBaseUrl ?? localBaseUrl(config.host, config.port);
    cli.out(`Open this link within 15 minutes to set the dashboard email and password of ${accountId} (it works once):`);
    cli.out(`  ${signInLinkUrl(base, link.token)}`);
  },
};
