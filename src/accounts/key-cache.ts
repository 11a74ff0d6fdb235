/**
 * An in-process cache of key lookups and their accounts: authentication is
 * the one query every call would make, and most calls come from a few hot
 * keys. Changes made through this process (revoke, credit) evict at once.
 * Changes made anywhere else (another instance, the CLI, SQL) reach it
 * through the database's change notifications (migration 0007, followed by
 * main.ts): while those arrive an entry is trusted for LIVE_TTL_MS, and when
 * they do not (not yet listening, or the listener reconnected and may have
 * missed some) only for the configured short TTL.
 * A prefix no key has is remembered for the short TTL only, in a bounded
 * map: a client retrying with a mistyped key costs one query per TTL, and a
 * flood of made-up keys can only push older entries out.
 */
import type { AccountRow, ApiKeyRow } from "./queries.ts";

export interface KeyLookup {
  key: ApiKeyRow;
  account: AccountRow;
}

const MAX_ENTRIES = 10_000;
/** The ceiling while notifications arrive: a notification lost without a reconnect is survived within it. */
export const LIVE_TTL_MS = 60_000;

/** Full maps drop their oldest entry: a flood of accounts cannot grow the cache without bound. */
function bounded<K, V>(map: Map<K, V>): Map<K, V> {
  if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value!);
  return map;
}

interface Entry<T> {
  value: T;
  expiresAt: number;
}

/** An account and the prefixes of its cached keys, so evicting it touches those keys only. */
interface AccountEntry extends Entry<AccountRow> {
  prefixes: Set<string>;
}

export class KeyCache {
  private readonly entries = new Map<string, Entry<KeyLookup>>();
  private readonly accounts = new Map<string, AccountEntry>();
  private readonly keyLists = new Map<string, Entry<ApiKeyRow[]>>();
  private readonly unknown = new Map<string, number>();
  private live = false;
  private evictions = 0;

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

  /** True while a recent lookup of this prefix found no key. */
  isUnknown(prefix: string): boolean {
    const until = this.unknown.get(prefix);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.unknown.delete(prefix);
    return false;
  }

  /** No key has this prefix (as of `version`): a new key announced since then clears it. */
  setUnknown(prefix: string, version: number): void {
    if (this.ttlMs > 0 && version === this.evictions) bounded(this.unknown).set(prefix, this.now() + this.ttlMs);
  }

  /** An account's keys as GET /v1/keys lists them, while fresh (any change to one of them evicts the account). */
  keysOf(accountId: string): ApiKeyRow[] | undefined {
    return this.fresh(this.keyLists, accountId);
  }

  /**
   * Taken before a lookup's query, handed back to set(): when anything was
   * evicted meanwhile, the row read may predate that change (a revocation
   * committed while the query ran) and is not cached.
   */
  version(): number {
    return this.evictions;
  }

  set(prefix: string, value: KeyLookup, version: number): void {
    const expiresAt = this.expiry(version);
    if (expiresAt === null) return;
    const accountId = value.account.id;
    const known = this.accounts.get(accountId);
    // An account pushed out takes its keys with it: none may outlive the entry its eviction goes through.
    if (!known && this.accounts.size >= MAX_ENTRIES) this.dropAccount(this.accounts.keys().next().value!);
    const prefixes = known?.prefixes ?? new Set<string>();
    prefixes.add(prefix);
    this.accounts.set(accountId, { value: value.account, expiresAt, prefixes });
    bounded(this.entries).set(prefix, { value, expiresAt });
  }

  setKeysOf(accountId: string, keys: ApiKeyRow[], version: number): void {
    const expiresAt = this.expiry(version);
    if (expiresAt !== null) bounded(this.keyLists).set(accountId, { value: keys, expiresAt });
  }

  forgetAccount(accountId: string): void {
    this.evictions++;
    this.unknown.clear(); // a new key may have one of the prefixes remembered as unknown
    this.dropAccount(accountId);
    this.keyLists.delete(accountId);
  }

  private dropAccount(accountId: string): void {
    const known = this.accounts.get(accountId);
    if (!known) return;
    this.accounts.delete(accountId);
    for (const prefix of known.prefixes) this.entries.delete(prefix);
  }

  clear(): void {
    this.evictions++;
    this.unknown.clear();
    this.entries.clear();
    this.accounts.clear();
    this.keyLists.clear();
  }

  private expiry(version: number): number | null {
    if (this.ttlMs <= 0 || version !== this.evictions) return null;
    return this.now() + (this.live ? Math.max(this.ttlMs, LIVE_TTL_MS) : this.ttlMs);
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
