import type { Clock } from "../clock.ts";
import { fullRefillMs, takeToken, type BucketPolicy, type BucketState, type Decision } from "./bucket.ts";
import type { BucketStore } from "./store.ts";

/** Buckets in this process: the embedded default, and the fail-open fallback. */
export class MemoryStore implements BucketStore {
  readonly name = "memory" as const;
  private readonly buckets = new Map<string, BucketState & { expiresAt: number }>();
  private takes = 0;

  constructor(private readonly clock: Clock) {}

  async take(key: string, policy: BucketPolicy): Promise<Decision> {
    return this.takeNow(key, policy);
  }

  takeNow(key: string, policy: BucketPolicy): Decision {
    const now = this.clock.now();
    if (++this.takes % 1024 === 0) this.sweep(now);
    const { state, decision } = takeToken(this.buckets.get(key), now, policy);
    this.buckets.set(key, { ...state, expiresAt: state.updatedAt + fullRefillMs(policy) });
    return decision;
  }

  /** Full buckets carry no information: drop them so memory stays bounded by active keys. */
  private sweep(now: number): void {
    for (const [key, bucket] of this.buckets) if (bucket.expiresAt <= now) this.buckets.delete(key);
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }
}
