/**
 * Leases for high limits. An Enterprise bucket (5,000 to 1,000,000 a minute)
 * checked one round trip at a time makes Redis carry every call; instead this
 * process takes a small lease of tokens from the shared bucket in one round
 * trip and spends it locally, so most checks never leave the process.
 *
 * What keeps it exact across instances: the store's script grants only
 * tokens the bucket holds at that instant (by Redis's clock), so the leases
 * of every instance together never exceed it; a lease is spent only for
 * LEASE_LIFETIME_MS after it was asked for, and what is left then is dropped,
 * never given back. Lost tokens can only make the limit stricter. What a
 * lease does change is when a token leaves the bucket: up to a lifetime
 * before the call that spends it. So over any stretch of time the calls
 * admitted stay within what a strict bucket would admit over that stretch
 * plus one lifetime before it: at most one second's refill (a 60th of the
 * limit) more, and only right after leases were taken from a full bucket.
 *
 * Checks that need tokens while a lease request is in flight wait for that
 * request (one round trip for all of them) and size the next one.
 */
import type { Clock } from "../clock.ts";
import type { BucketPolicy, Decision, Grant } from "./bucket.ts";
import { ENTERPRISE_MIN_PER_MINUTE } from "./plans.ts";

/**
 * Buckets this large are leased. Free, Pro and the dashboard's allowance sit far below it and keep one
 * round trip per check: at their limits Redis is not the cost, and a token parked in one instance's lease
 * would be a real share of their bucket.
 */
const LEASE_FROM_PER_MINUTE = ENTERPRISE_MIN_PER_MINUTE;

/**
 * How long leased tokens may be spent. Long enough that a busy key renews about once per lease rather than
 * per check; short enough that tokens parked in a process whose callers went quiet (or that died) are idle
 * for at most a second, and that the timing bound above stays one second's refill.
 */
export const LEASE_LIFETIME_MS = 1_000;

/**
 * The largest lease, as a share of the bucket: 50 tokens of a 5,000/min key, 10,000 of a 1,000,000/min key.
 * With N instances at most N% of a bucket is parked in leases at once, so four instances cannot starve
 * each other of a 5,000/min key (200 tokens, under 3 seconds of its refill), and a full lease costs one
 * round trip per 100th of the limit: 0.02 per call at most for a 5,000/min key, under the 0.1 target with room
 * for the leases that are still growing and those cut short by an empty bucket.
 */
const LEASE_SHARE = 0.01;

/** A key's learnt lease size is kept this long after its lease ended, then forgotten (memory stays bounded). */
const IDLE_KEEP_MS = 60_000;

/** One round trip to the shared bucket, with the limiter's timeout applied. */
export type LeaseRequest = (key: string, policy: BucketPolicy, want: number) => Promise<Grant>;

export function leased(policy: BucketPolicy): boolean {
  return policy.capacity >= LEASE_FROM_PER_MINUTE;
}

function largestLease(policy: BucketPolicy): number {
  return Math.max(1, Math.floor(policy.capacity * LEASE_SHARE));
}

interface KeyLease {
  /** Tokens this process may still spend, until expiresAt (this process's clock). */
  tokens: number;
  expiresAt: number;
  /** Of the current lease: granted, and spent so far. Demand is learnt from them. */
  granted: number;
  spent: number;
  /** The next lease's size: starts at one token, doubles while leases run dry, falls to what was used. */
  want: number;
  /** What the shared bucket said at the last grant, and when this process heard it. */
  bucketRemaining: number;
  resetMs: number;
  heardAt: number;
  /** The bucket had nothing: checks are refused here, without asking, until then. */
  refusedUntil: number;
  pending?: Promise<void>;
  /** Checks awaiting `pending`. */
  waiting: number;
}

const noLease = (): KeyLease => ({
  tokens: 0,
  expiresAt: 0,
  granted: 0,
  spent: 0,
  want: 1,
  bucketRemaining: 0,
  resetMs: 0,
  heardAt: 0,
  refusedUntil: 0,
  waiting: 0,
});

export class Leases {
  private readonly keys = new Map<string, KeyLease>();
  private takes = 0;

  constructor(
    private readonly request: LeaseRequest,
    private readonly clock: Clock,
  ) {}

  /**
   * One token for a leased bucket: from this process's lease when it has one (answered at once, without a
   * promise), else from a new lease. Rejects when the store does.
   */
  take(key: string, policy: BucketPolicy): Decision | Promise<Decision> {
    if (++this.takes % 1024 === 0) this.sweep(this.clock.now());
    let lease = this.keys.get(key);
    if (!lease) this.keys.set(key, (lease = noLease()));
    return spend(lease, this.clock.now(), policy) ?? this.renewed(key, policy, lease);
  }

  private async renewed(key: string, policy: BucketPolicy, lease: KeyLease): Promise<Decision> {
    for (;;) {
      const now = this.clock.now();
      const decision = spend(lease, now, policy);
      if (decision) return decision;
      // A grant can be used up by the checks that awaited it first: the rest ask again, as one.
      lease.pending ??= this.renew(key, policy, lease, now).finally(() => {
        lease.pending = undefined;
      });
      lease.waiting++;
      try {
        await lease.pending;
      } finally {
        lease.waiting--;
      }
    }
  }

  private async renew(key: string, policy: BucketPolicy, lease: KeyLease, askedAt: number): Promise<void> {
    if (lease.granted > 0) {
      const ranDry = lease.tokens < 1 && askedAt < lease.expiresAt;
      lease.want = ranDry ? Math.max(lease.want, lease.spent * 2) : Math.max(1, lease.spent);
    }
    // The checks already waiting are demand too (their lease ran dry under them).
    const want = Math.min(largestLease(policy), Math.max(lease.want, lease.waiting + 1));
    const grant = await this.request(key, policy, want);
    const heardAt = this.clock.now();
    Object.assign(lease, {
      tokens: grant.granted,
      granted: grant.granted,
      spent: 0,
      // From when it was asked for: the lifetime never stretches by the round trip.
      expiresAt: askedAt + LEASE_LIFETIME_MS,
      bucketRemaining: grant.remaining,
      resetMs: grant.resetMs,
      heardAt,
      // Empty: wait until the bucket can hold the lease asked for, not one token. Every instance asking again
      // for each token refilled would cost a round trip per admitted call at the limit; the tokens keep
      // accumulating in the bucket meanwhile, so none is lost by waiting.
      refusedUntil: grant.granted > 0 ? 0 : heardAt + grant.retryAfterMs + Math.ceil((want - 1) / (policy.refillPerSecond / 1000)),
    });
  }

  /** Leases this process holds now: granted, unexpired, with tokens left to spend (read when metrics are scraped). */
  held(now: number): number {
    let count = 0;
    for (const lease of this.keys.values()) if (lease.tokens >= 1 && now < lease.expiresAt) count++;
    return count;
  }

  /** Keys whose lease ended long ago carry only a learnt size: drop them. */
  private sweep(now: number): void {
    for (const [key, lease] of this.keys) {
      const idleSince = Math.max(lease.expiresAt, lease.refusedUntil);
      if (!lease.pending && lease.waiting === 0 && idleSince + IDLE_KEEP_MS <= now) this.keys.delete(key);
    }
  }
}

/**
 * A decision made here, or undefined when the store must be asked. Remaining is this lease's tokens plus what
 * the bucket held after granting it: what the bucket had, less what this process spent since; never more.
 */
function spend(lease: KeyLease, now: number, policy: BucketPolicy): Decision | undefined {
  const resetMs = Math.max(0, lease.resetMs - (now - lease.heardAt));
  if (lease.tokens >= 1 && now < lease.expiresAt) {
    lease.tokens--;
    lease.spent++;
    return { allowed: true, limit: policy.capacity, remaining: lease.tokens + lease.bucketRemaining, retryAfterMs: 0, resetMs };
  }
  if (now < lease.refusedUntil)
    return { allowed: false, limit: policy.capacity, remaining: 0, retryAfterMs: lease.refusedUntil - now, resetMs };
  return undefined;
}
