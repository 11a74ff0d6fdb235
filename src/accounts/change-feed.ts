/**
 * Keeps the key cache honest across instances: every change to an account or
 * its keys, whoever makes it, is announced by the database at commit
 * (migration 0007's triggers on channel `account_changed`, the account id as
 * payload) and evicts that account here. Until the feed listens, and after a
 * reconnect that may have lost announcements, the cache falls back to its
 * short TTL and starts empty (KeyCache.following).
 * The same announcement ends the calls an account has running here when it
 * is no longer active (standing-watch.ts); after a reconnect every account
 * with running calls is read again, as announcements may have been lost.
 */
import type { DatabaseHandle } from "../../db/client.ts";
import type { Logger } from "../log.ts";
import type { KeyCache } from "./key-cache.ts";
import type { StandingWatch } from "./standing-watch.ts";

export const ACCOUNT_CHANGED = "account_changed";

export async function followAccountChanges(
  database: DatabaseHandle,
  cache: KeyCache,
  log: Logger,
  standing?: StandingWatch,
): Promise<() => Promise<void>> {
  try {
    return await database.listen(
      ACCOUNT_CHANGED,
      (accountId) => {
        cache.forgetAccount(accountId);
        void standing?.changed([accountId]);
      },
      () => {
        cache.following();
        void standing?.recheckAll();
      },
    );
  } catch (error) {
    // The short TTL bounds how long a change made elsewhere goes unseen: slower, never wrong for longer than that.
    // Running calls of an account changed elsewhere then run to their end; changes made in this process still stop them.
    log.warn("account change notifications unavailable; cached keys expire after AUTH_CACHE_TTL_MS", { error });
    cache.notFollowing();
    return async () => {};
  }
}
