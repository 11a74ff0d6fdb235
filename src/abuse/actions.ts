/**
 * What ABUSE_ACTION does to a flag's accounts. Each account's plan is read
 * again from the database first: an account that has paid since (or has an
 * Enterprise contract) is never acted on, whatever the windows saw.
 * throttle: the Free accounts share one bucket, `shared:<flag id>`, at the
 * Free limit (limits/admission.ts), so together they get what one account
 * gets. suspend: each is suspended with the flag's id in the reason its
 * callers are shown. Both leave an audit row by `abuse-detector`, and every
 * instance hears of it at once (accounts/change-feed.ts).
 */
import { inArray } from "drizzle-orm";
import { accounts } from "../../db/schema.ts";
import type { AccountsContext } from "../accounts/context.ts";
import { changeStatus, shareBucket } from "../accounts/status.ts";
import { planFor } from "../limits/plans.ts";
import type { AbuseAction } from "./flags.ts";

export const ACTOR = "abuse-detector";

/** The accounts acted on (Free ones, still active), by id. */
export async function actOnFlag(ctx: AccountsContext, action: AbuseAction, flagId: string, accountIds: string[]): Promise<string[]> {
  if (action === "report" || !accountIds.length) return [];
  const rows = await ctx.db
    .select({ id: accounts.id, status: accounts.status, balanceMicros: accounts.balanceMicros, customRateLimit: accounts.customRateLimit })
    .from(accounts)
    .where(inArray(accounts.id, accountIds));
  const free = rows.filter((row) => row.status === "active" && planFor(row).name === "free").map((row) => row.id);
  if (action === "throttle")
    return shareBucket(ctx, free, flagId, `limit evasion across accounts (flag ${flagId}): one Free allowance shared`, ACTOR);
  for (const accountId of free)
    await changeStatus(ctx, { accountId, action: "suspend", reason: `limit evasion across accounts (flag ${flagId})`, actor: ACTOR });
  return free;
}
