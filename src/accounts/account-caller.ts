/** The Caller of an account: with the key that called (or that made the work a worker now runs), or a dashboard session's. */
import type { Caller } from "../caller.ts";
import type { AccountRow } from "./queries.ts";

export function accountCaller(
  account: Pick<AccountRow, "id" | "name" | "balanceMicros" | "customRateLimit" | "sharedBucket">,
  key: { id: string; prefix: string | null } | null,
  sessionId?: string,
): Caller {
  return {
    accountId: account.id,
    accountName: account.name,
    keyId: key?.id ?? null,
    keyPrefix: key?.prefix ?? null,
    ...(sessionId === undefined ? {} : { sessionId }),
    balanceMicros: account.balanceMicros,
    customRateLimit: account.customRateLimit,
    sharedBucket: account.sharedBucket,
  };
}
