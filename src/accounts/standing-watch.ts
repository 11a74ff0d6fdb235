/**
 * The calls running in this process, per account and key, so that
 * suspending or banning an account, or revoking a key, ends them at once
 * instead of letting a long research run or an open socket go on, whichever
 * instance the change was made through. The run wrapper
 * (research/run/hold.ts) and the search socket register here through their
 * own small interface; the change feed (change-feed.ts: the database
 * announces every change to an account or its keys) and changeStatus in
 * this process tell it which account changed. Only an account with calls
 * running here costs a query (its standing and its running keys, read once
 * per change); every other change is free.
 */
import { and, inArray, isNotNull, lte, or } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { accounts, apiKeys } from "../../db/schema.ts";
import { unauthorized, type ServiceError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { AccountRow } from "./queries.ts";
import { standingRefusal } from "./standing.ts";

type Standing = Pick<AccountRow, "id" | "status" | "statusReason">;
type Stop = (refusal: ServiceError) => void;
/** A running call: how to stop it, and the key it was made with (null for a dashboard session). */
interface Running {
  stop: Stop;
  keyId: string | null;
}

export class StandingWatch {
  private readonly running = new Map<string, Set<Running>>();

  constructor(
    private readonly db: Database,
    private readonly log: Pick<Logger, "warn">,
  ) {}

  /**
   * Registers a running call: `stop` is called with the 403 if its account
   * stops being active, or with the 401 if its key is revoked or has expired.
   * Returns the unregistering function.
   */
  track(accountId: string, stop: Stop, keyId: string | null = null): () => void {
    let calls = this.running.get(accountId);
    if (!calls) this.running.set(accountId, (calls = new Set()));
    const call = { stop, keyId };
    calls.add(call);
    return () => {
      calls.delete(call);
      if (!calls.size && this.running.get(accountId) === calls) this.running.delete(accountId);
    };
  }

  /** How many calls of an account are registered here: a test waits on it before changing the account mid-run. */
  runningFor(accountId: string): number {
    return this.running.get(accountId)?.size ?? 0;
  }

  /**
   * An account or one of its keys changed somewhere (any column: the feed
   * does not say which). With calls running here, its standing and the keys
   * they run with are read once: if it is no longer active, they are all
   * stopped; if a key no longer opens, the calls made with it are. Never
   * throws: a failed read is logged, and the calls run on as if the change
   * had not been seen.
   */
  async changed(accountIds: string[]): Promise<void> {
    const watched = accountIds.filter((id) => this.running.has(id));
    if (!watched.length) return;
    const keys = [...new Set(watched.flatMap((id) => [...this.running.get(id)!].flatMap((call) => (call.keyId ? [call.keyId] : []))))];
    try {
      const rows = await this.db
        .select({ id: accounts.id, status: accounts.status, statusReason: accounts.statusReason })
        .from(accounts)
        .where(inArray(accounts.id, watched));
      for (const row of rows) this.settle(row);
      if (!keys.length) return;
      const closed = await this.db
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .where(and(inArray(apiKeys.id, keys), or(isNotNull(apiKeys.revokedAt), lte(apiKeys.expiresAt, new Date()))));
      for (const { id } of closed) this.keyClosed(id);
    } catch (error) {
      this.log.warn("could not read the standing of accounts with running calls", { accounts: watched.length, error });
    }
  }

  /** After the feed (re)connects, announcements may have been lost: every account with calls running here is read again. */
  recheckAll(): Promise<void> {
    return this.changed([...this.running.keys()]);
  }

  /** An account's standing as just written or read: its running calls stop when it is not active. No query. */
  settle(account: Standing): void {
    const refusal = standingRefusal(account);
    if (!refusal) return;
    for (const call of [...(this.running.get(account.id) ?? [])]) call.stop(refusal);
  }

  /** A key no longer opens: the calls made with it stop with the 401 a new call with it would get. */
  private keyClosed(keyId: string): void {
    for (const calls of this.running.values()) for (const call of [...calls]) if (call.keyId === keyId) call.stop(unauthorized());
  }
}
