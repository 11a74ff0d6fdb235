import type { BucketPolicy, Decision, Grant } from "./bucket.ts";

export type StoreName = "memory" | "redis" | "upstash";

/** Where buckets live. One `take` is one atomic check-and-take. */
export interface BucketStore {
  readonly name: StoreName;
  take(key: string, policy: BucketPolicy): Promise<Decision>;
  /**
   * Takes up to `want` tokens in one atomic step, never more than the bucket holds: a lease the limiter
   * spends locally (lease.ts). Only shared stores have it; a bucket in this process gains nothing from one.
   */
  lease?(key: string, policy: BucketPolicy, want: number): Promise<Grant>;
  /** Gets the store ready (connect, load the script); failures are reported, not fatal. */
  init?(): Promise<void>;
  close(): Promise<void>;
}
