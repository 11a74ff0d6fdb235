import type { BucketPolicy, Decision } from "./bucket.ts";

export type StoreName = "memory" | "redis" | "upstash";

/** Where buckets live. One `take` is one atomic check-and-take. */
export interface BucketStore {
  readonly name: StoreName;
  take(key: string, policy: BucketPolicy): Promise<Decision>;
  /** Gets the store ready (connect, load the script); failures are reported, not fatal. */
  init?(): Promise<void>;
  close(): Promise<void>;
}
