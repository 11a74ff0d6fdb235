/**
 * The rule of standing: an account that is not active is refused with 403
 * account_suspended, its reason in the message. Where the caller is
 * identified (service.ts, authenticator.ts, sign-in) and where running
 * calls are watched (standing-watch.ts), the same words.
 */
import { ServiceError } from "../errors.ts";
import type { AccountRow } from "./queries.ts";

/** The 403 an account that is not active gets, or null when it may call. */
export function standingRefusal(account: Pick<AccountRow, "status" | "statusReason">): ServiceError | null {
  if (account.status === "active") return null;
  const reason = account.statusReason?.trim() || "no reason given";
  return new ServiceError("account_suspended", `this account is ${account.status}: ${reason}`);
}

/** Throws the 403 unless the account is active. */
export function assertInGoodStanding(account: Pick<AccountRow, "status" | "statusReason">): void {
  const refusal = standingRefusal(account);
  if (refusal) throw refusal;
}
