/**
 * A short-lived, in-process cache of key lookups: authentication is the one
 * query every call makes, and most calls come from a few hot keys. Changes
 * made through this process (revoke, credit) evict at once; changes made
 * elsewhere (the CLI, another instance) are seen within the TTL.
 * Unknown keys are never cached, so a flood of made-up keys cannot fill it.
 */
import type { AccountRow, ApiKeyRow } from "./queries.ts";

export interface KeyLookup {
  key: ApiKeyRow;
  account: AccountRow;
}

const MAX_ENTRIES = 10_000;

export class KeyCache {
  private readonly entries = new Map<string, { value: KeyLookup; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  get(prefix: string): KeyLookup | undefined {
    const hit = this.entries.get(prefix);
    if (!hit) return undefined;
    if (hit.expiresAt <= this.now()) {
      this.entries.delete(prefix);
      return undefined;
    }
    return hit.value;
  }

  set(prefix: string, value: KeyLookup): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(prefix, { value, expiresAt: this.now() + this.ttlMs });
  }

  forgetKey(keyId: string): void {
    for (const [prefix, hit] of this.entries) if (hit.value.key.id === keyId) this.entries.delete(prefix);
  }

  forgetAccount(accountId: string): void {
    for (const [prefix, hit] of this.entries) if (hit.value.account.id === accountId) this.entries.delete(prefix);
  }
}
