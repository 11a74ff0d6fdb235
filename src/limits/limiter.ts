/**
 * The rate limiter every authenticated call passes: one bucket per API key,
 * sized by the account's plan. It wraps a store with a short deadline and a
 * circuit breaker. When the store fails, RATE_LIMIT_FAIL_MODE decides:
 * `open` keeps admitting against a per-process bucket, `closed` refuses with
 * 503. One log line when an outage starts and one when it ends; one probe at
 * a time goes back to the store so recovery needs no restart. Buckets with
 * high limits are spent through leases (lease.ts), whose requests pass the
 * same deadline and breaker.
 */
import type { Clock } from "../clock.ts";
import { ServiceError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { BucketPolicy, Decision } from "./bucket.ts";
import { leased, Leases } from "./lease.ts";
import type { MemoryStore } from "./memory-store.ts";
import type { InFlightGauge } from "./peak-load.ts";
import type { Plan } from "./plans.ts";
import type { BucketStore, StoreName } from "./store.ts";

export interface LimitOutcome extends Decision {
  plan: Plan;
  /** True when the store was unreachable and the per-process fallback decided. */
  degraded: boolean;
}

export interface LimiterSettings {
  failMode: "open" | "closed";
  timeoutMs: number;
  keyPrefix: string;
  peakInflightThreshold: number;
  peakFreeRefillFactor: number;
}

export interface LimiterStatus {
  store: StoreName;
  healthy: boolean;
  failMode: "open" | "closed";
  outageSince: string | null;
}

const PROBE_INTERVAL_MS = 500;
// The probe's own bucket: never empty, so a probe only asks whether the store answers.
const PROBE_POLICY: BucketPolicy = { capacity: 1_000_000, refillPerSecond: 1_000_000 };

class StoreTimeout extends Error {
  constructor(ms: number) {
    super(`rate limit store did not answer within ${ms} ms`);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeout(ms)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class RateLimiter {
  private outage: { since: number; nextProbeAt: number } | null = null;
  private probing = false;
  private readonly leases: Leases | undefined;

  constructor(
    private readonly store: BucketStore,
    private readonly fallback: MemoryStore,
    private readonly settings: LimiterSettings,
    private readonly deps: { clock: Clock; log: Logger; load: InFlightGauge },
  ) {
    const lease = store.lease?.bind(store);
    if (lease) this.leases = new Leases((key, policy, want) => withTimeout(lease(key, policy, want), settings.timeoutMs), deps.clock);
  }

  policyFor(plan: Plan): BucketPolicy {
    const perSecond = plan.perMinute / 60;
    const slowed = plan.name === "free" && this.deps.load.value >= this.settings.peakInflightThreshold;
    return { capacity: plan.perMinute, refillPerSecond: slowed ? perSecond * this.settings.peakFreeRefillFactor : perSecond };
  }

  /**
   * Takes one token from the key's bucket. Throws 503 only in closed mode during an outage. Answers at once (no
   * promise) when no store round trip is needed: the in-memory store, a lease with tokens left, an outage.
   */
  check(keyId: string, plan: Plan): LimitOutcome | Promise<LimitOutcome> {
    // The limit is part of the key: a plan change starts a fresh bucket of the new size at once.
    const key = `${this.settings.keyPrefix}rl:${keyId}:${plan.perMinute}`;
    const policy = this.policyFor(plan);
    if (this.store === this.fallback) return { ...this.fallback.takeNow(key, policy), plan, degraded: false };

    // During an outage no request waits on the store: each is decided at once, and a probe in the background
    // (at most one per interval) finds out when the store is back. Only the call that discovers an outage (a
    // hung store, or one still reconnecting) waits, at most the timeout.
    if (this.outage) {
      this.probe();
      return this.degraded(key, policy, plan);
    }
    let decision: Decision | Promise<Decision>;
    try {
      decision =
        this.leases && leased(policy) ? this.leases.take(key, policy) : withTimeout(this.store.take(key, policy), this.settings.timeoutMs);
    } catch (error) {
      return this.unreachable(error, key, policy, plan);
    }
    if (!(decision instanceof Promise)) return { ...decision, plan, degraded: false };
    return decision.then(
      (decided) => ({ ...decided, plan, degraded: false }),
      (error: unknown) => this.unreachable(error, key, policy, plan),
    );
  }

  /** The store failed a check: an outage begins (said once), and the call is decided without it. */
  private unreachable(error: unknown, key: string, policy: BucketPolicy, plan: Plan): LimitOutcome {
    if (!this.outage) {
      this.outage = { since: this.deps.clock.now(), nextProbeAt: this.deps.clock.now() + PROBE_INTERVAL_MS };
      this.deps.log.warn(`rate limit store unreachable; failing ${this.settings.failMode}`, { store: this.store.name, error });
    }
    return this.degraded(key, policy, plan);
  }

  private probe(): void {
    const outage = this.outage;
    if (!outage || this.probing || this.deps.clock.now() < outage.nextProbeAt) return;
    this.probing = true;
    void withTimeout(this.store.take(`${this.settings.keyPrefix}rl:probe`, PROBE_POLICY), this.settings.timeoutMs)
      .then(() => {
        this.deps.log.info("rate limit store recovered", { store: this.store.name, outage_ms: this.deps.clock.now() - outage.since });
        this.outage = null;
      })
      .catch(() => {
        outage.nextProbeAt = this.deps.clock.now() + PROBE_INTERVAL_MS;
      })
      .finally(() => {
        this.probing = false;
      });
  }

  private degraded(key: string, policy: BucketPolicy, plan: Plan): LimitOutcome {
    if (this.settings.failMode === "closed") {
      throw new ServiceError("rate_limiter_unavailable", "rate limiting is temporarily unavailable, try again in 1 second", {
        retryAfterSeconds: 1,
      });
    }
    return { ...this.fallback.takeNow(key, policy), plan, degraded: true };
  }

  status(): LimiterStatus {
    return {
      store: this.store.name,
      healthy: this.outage === null,
      failMode: this.settings.failMode,
      outageSince: this.outage ? new Date(this.outage.since).toISOString() : null,
    };
  }

  async close(): Promise<void> {
    await this.store.close();
    if (this.fallback !== this.store) await this.fallback.close();
  }
}
