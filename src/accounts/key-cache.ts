/**
 * An in-process cache of key lookups and their accounts: authentication is
 * the one query every call would make, and most calls come from a few hot
 * keys. Changes made through this process (revoke, credit) evict at once.
 * Changes made anywhere else (another instance, the CLI, SQL) reach it
 * through the database's change notifications (migration 0007, followed by
 * main.ts): while those arrive an entry is trusted for LIVE_TTL_MS, and when
 * they do not (not yet listening, or the listener reconnected and may have
 * missed some) only for the configured short TTL.
 * Unknown keys are never cached, so a flood of made-up keys cannot fill it.
 */
import type { AccountRow, ApiKeyRow } from "./queries.ts";

export interface KeyLookup {
  key: ApiKeyRow;
  account: AccountRow;
}

const MAX_ENTRIES = 10_000;
/** The ceiling while notifications arrive: a notification lost without a reconnect is survived within it. */
export const LIVE_TTL_MS = 60_000;

interface Entry<T> {
  value: T;
  expiresAt: number;
}

export class KeyCache {
  private readonly entries = new Map<string, Entry<KeyLookup>>();
  private readonly accounts = new Map<string, Entry<AccountRow>>();
  private live = false;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  /**
   * The change feed is (again) listening: whatever was cached before may have
   * missed a change, so it goes, and from now on entries live longer.
   */
  following(): void {
    this.clear();
    this.live = true;
  }

  /** The change feed is gone: back to the short TTL, and nothing cached under the long one is kept. */
  notFollowing(): void {
    this.live = false;
    this.clear();
  }

  get(prefix: string): KeyLookup | undefined {
    return this.fresh(this.entries, prefix);
  }

  /** An account seen through one of its keys, while fresh: GET /v1/account needs no query of its own. */
  account(accountId: string): AccountRow | undefined {
    return this.fresh(this.accounts, accountId);
  }

  set(prefix: string, value: KeyLookup): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    if (this.accounts.size >= MAX_ENTRIES) this.accounts.delete(this.accounts.keys().next().value!);
    const expiresAt = this.now() + (this.live ? Math.max(this.ttlMs, LIVE_TTL_MS) : this.ttlMs);
    this.entries.set(prefix, { value, expiresAt });
    this.accounts.set(value.account.id, { value: value.account, expiresAt });
  }

  forgetKey(keyId: string): void {
    for (const [prefix, hit] of this.entries) if (hit.value.key.id === keyId) this.entries.delete(prefix);
  }

  forgetAccount(accountId: string): void {
    this.accounts.delete(accountId);
    for (const [prefix, hit] of this.entries) if (hit.value.account.id === accountId) this.entries.delete(prefix);
  }

  clear(): void {
    this.entries.clear();
    this.accounts.clear();
  }

  private fresh<T>(map: Map<string, Entry<T>>, id: string): T | undefined {
    const hit = map.get(id);
    if (!hit) return undefined;
    if (hit.expiresAt <= this.now()) {
      map.delete(id);
      return undefined;
    }
    return hit.value;
  }
}
