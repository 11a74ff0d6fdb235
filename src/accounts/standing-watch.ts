/**
 * The calls running in this process, per account, so that suspending or
 * banning an account ends them at once instead of letting a long research
 * run or an open socket go on. The run wrapper (research/run/hold.ts) and
 * the search socket register here through their own small interface; the
 * change feed (change-feed.ts) and changeStatus in this process tell it
 * which account changed. Only an account with calls running here costs a
 * query (its standing, read once per change); every other change is free.
 */
import { inArray } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { accounts } from "../../db/schema.ts";
import type { ServiceError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { AccountRow } from "./queries.ts";
import { standingRefusal } from "./standing.ts";

type Standing = Pick<AccountRow, "id" | "status" | "statusReason">;
type Stop = (refusal: ServiceError) => void;

export class StandingWatch {
  private readonly running = new Map<string, Set<Stop>>();

  constructor(
    private readonly db: Database,
    private readonly log: Pick<Logger, "warn">,
  ) {}

  /** Registers a running call: `stop` is called with the 403 if its account stops being active. Returns the unregistering function. */
  track(accountId: string, stop: Stop): () => void {
    let stops = this.running.get(accountId);
    if (!stops) this.running.set(accountId, (stops = new Set()));
    stops.add(stop);
    return () => {
      stops.delete(stop);
      if (!stops.size && this.running.get(accountId) === stops) this.running.delete(accountId);
    };
  }

  /** How many calls of an account are registered here: a test waits on it before changing the account mid-run. */
  runningFor(accountId: string): number {
    return this.running.get(accountId)?.size ?? 0;
  }

  /**
   * An account changed somewhere (any column: the feed does not say which).
   * With calls running here, its standing is read once and, if it is no
   * longer active, they are stopped. Never throws: a failed read is logged,
   * and the calls run on as if the change had not been seen.
   */
  async changed(accountIds: string[]): Promise<void> {
    const watched = accountIds.filter((id) => this.running.has(id));
    if (!watched.length) return;
    try {
      const rows = await this.db
        .select({ id: accounts.id, status: accounts.status, statusReason: accounts.statusReason })
        .from(accounts)
        .where(inArray(accounts.id, watched));
      for (const row of rows) this.settle(row);
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
    for (const stop of [...(this.running.get(account.id) ?? [])]) stop(refusal);
  }
}
