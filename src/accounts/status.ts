/**
 * Account standing: active, suspended (with a reason) or banned. Anything
 * but active is refused on every route and socket with 403
 * account_suspended, checked where the caller is identified (service.ts,
 * authenticator.ts), so no route can forget it. Each change is written with
 * an audit row in one transaction; the accounts trigger (migration 0007)
 * announces it to every instance, whose key caches and running calls
 * (change-feed.ts, standing-watch.ts) act on it at once.
 */
import { desc, eq, inArray } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { accountAudit, accounts, type AccountStatus } from "../../db/schema.ts";
import { invalid, notFound } from "../errors.ts";
import { newId } from "../ids.ts";
import type { AccountRow } from "./queries.ts";
import type { AccountsContext } from "./context.ts";

export type StatusAction = "suspend" | "reinstate" | "ban";
export type AuditRow = typeof accountAudit.$inferSelect;

const NEXT: Record<StatusAction, AccountStatus> = { suspend: "suspended", reinstate: "active", ban: "banned" };
const MAX_REASON = 500;

export interface StatusChange {
  accountId: string;
  action: StatusAction;
  reason?: string | null;
  /** Who acted, for the audit: `cli:<user>`, `abuse-detector`. */
  actor: string;
}

/** Suspends, bans or reinstates an account; reinstating also lifts a shared (throttled) bucket. */
export async function changeStatus(ctx: AccountsContext, change: StatusChange): Promise<AccountRow> {
  const reason = change.reason?.trim() || null;
  if (change.action !== "reinstate" && !reason) throw invalid(["reason"], "a reason is required: the account's callers are shown it");
  if (reason && (reason.length > MAX_REASON || reason.includes("\u0000")))
    throw invalid(["reason"], `a reason is at most ${MAX_REASON} characters of text`);
  const at = new Date(ctx.clock.now());
  const updated = await ctx.db.transaction(async (transaction) => {
    const tx = transaction as unknown as Database;
    const rows = await tx
      .update(accounts)
      .set({
        status: NEXT[change.action],
        statusReason: change.action === "reinstate" ? null : reason,
        statusChangedAt: at,
        updatedAt: at,
        ...(change.action === "reinstate" ? { sharedBucket: null } : {}),
      })
      .where(eq(accounts.id, change.accountId))
      .returning();
    if (!rows[0]) throw notFound("account");
    await tx
      .insert(accountAudit)
      .values({ id: newId("aud"), accountId: change.accountId, action: change.action, reason, actor: change.actor, createdAt: at });
    return rows[0];
  });
  ctx.keyCache?.forgetAccount(change.accountId);
  // The announcement reaches this process's feed too, but not when the feed is down: stop its calls here, now.
  ctx.standing?.settle(updated);
  return updated;
}

/**
 * Puts Free accounts on one shared bucket (limit evasion, ABUSE_ACTION=throttle): together they get one
 * Free allowance. Each gets an audit row. Accounts already sharing a bucket keep theirs.
 */
export async function shareBucket(
  ctx: AccountsContext,
  accountIds: string[],
  bucket: string,
  reason: string,
  actor: string,
): Promise<string[]> {
  if (!accountIds.length) return [];
  const at = new Date(ctx.clock.now());
  const changed = await ctx.db.transaction(async (transaction) => {
    const tx = transaction as unknown as Database;
    const rows = await tx
      .select({ id: accounts.id, sharedBucket: accounts.sharedBucket })
      .from(accounts)
      .where(inArray(accounts.id, accountIds));
    const fresh = rows.filter((row) => !row.sharedBucket).map((row) => row.id);
    if (!fresh.length) return [];
    await tx.update(accounts).set({ sharedBucket: bucket, updatedAt: at }).where(inArray(accounts.id, fresh));
    await tx
      .insert(accountAudit)
      .values(fresh.map((accountId) => ({ id: newId("aud"), accountId, action: "throttle", reason, actor, createdAt: at })));
    return fresh;
  });
  for (const id of changed) ctx.keyCache?.forgetAccount(id);
  return changed;
}

/** The account's audit trail, newest first. */
export async function auditOf(db: Database, accountId: string, limit = 100): Promise<AuditRow[]> {
  return db
    .select()
    .from(accountAudit)
    .where(eq(accountAudit.accountId, accountId))
    .orderBy(desc(accountAudit.createdAt), desc(accountAudit.id))
    .limit(limit);
}
