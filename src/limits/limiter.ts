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
import { counterFrom, gaugeFrom, metrics, metricsEnabled } from "../observe/metrics.ts";
import type { BucketPolicy, Decision } from "./bucket.ts";
import { leased, Leases } from "./lease.ts";
import type { MemoryStore } from "./memory-store.ts";
import type { InFlightGauge } from "./peak-load.ts";
import type { Plan, PlanName } from "./plans.ts";
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

/**
 * What a decision is counted under (limiter_decisions_total's plan label): the plan of a key's or a research
 * bucket, or the allowance that is not a plan's (a dashboard's browsing, sign-in and sign-up attempts).
 */
export type LimitMeter = PlanName | "dashboard" | "signin" | "signup";
type DecisionOutcome = "allowed" | "limited" | "failed_open" | "failed_closed";
const METERS: readonly LimitMeter[] = ["free", "pro", "enterprise", "dashboard", "signin", "signup"];
const OUTCOMES: readonly DecisionOutcome[] = ["allowed", "limited", "failed_open", "failed_closed"];
// One label object per pair, made once: counting a decision allocates nothing.
const DECISION_LABELS = Object.fromEntries(
  METERS.map((plan) => [plan, Object.fromEntries(OUTCOMES.map((outcome) => [outcome, { plan, outcome }]))]),
) as Record<LimitMeter, Record<DecisionOutcome, { plan: LimitMeter; outcome: DecisionOutcome }>>;

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
  /** Seconds of the outages that have ended; the current one's are added when read. */
  private outageSeconds = 0;
  private probing = false;
  private readonly leases: Leases | undefined;
  private readonly unregister: (() => void)[];
  private readonly roundTripLabels: { ok: { store: StoreName; outcome: "ok" }; error: { store: StoreName; outcome: "error" } };
  private readonly storeLabels: { store: StoreName };

  constructor(
    private readonly store: BucketStore,
    private readonly fallback: MemoryStore,
    private readonly settings: LimiterSettings,
    private readonly deps: { clock: Clock; log: Logger; load: InFlightGauge },
  ) {
    const lease = store.lease?.bind(store);
    if (lease) this.leases = new Leases((key, policy, want) => this.roundTrip(lease(key, policy, want)), deps.clock);
    this.storeLabels = { store: store.name };
    this.roundTripLabels = { ok: { store: store.name, outcome: "ok" }, error: { store: store.name, outcome: "error" } };
    // Read when scraped: an outage going on shows in its seconds and in the store being down, without waiting for it to end.
    this.unregister = [
      gaugeFrom("limiter_store_up", () => (this.outage ? 0 : 1)),
      counterFrom("limiter_store_outage_seconds_total", () => this.outageSeconds + this.ongoingOutageSeconds()),
      gaugeFrom("limiter_leases_held", () => this.leases?.held(deps.clock.now()) ?? 0),
    ];
  }

  private ongoingOutageSeconds(): number {
    return this.outage ? Math.max(0, this.deps.clock.now() - this.outage.since) / 1000 : 0;
  }

  /** One round trip to the store, within the deadline: every check, lease and probe that leaves the process goes here. */
  private roundTrip<T>(sent: Promise<T>): Promise<T> {
    const answer = withTimeout(sent, this.settings.timeoutMs);
    if (!metricsEnabled()) return answer;
    const started = performance.now();
    const counted = (labels: { store: StoreName; outcome: "ok" | "error" }) => {
      metrics.limiterStoreRoundTrips.inc(labels);
      metrics.limiterStoreDuration.observe(this.storeLabels, (performance.now() - started) / 1000);
    };
    answer.then(
      () => counted(this.roundTripLabels.ok),
      () => counted(this.roundTripLabels.error),
    );
    return answer;
  }

  private counted(meter: LimitMeter, outcome: LimitOutcome): LimitOutcome {
    metrics.limiterDecisions.inc(DECISION_LABELS[meter][outcome.degraded ? "failed_open" : outcome.allowed ? "allowed" : "limited"]);
    return outcome;
  }

  policyFor(plan: Plan): BucketPolicy {
    const perSecond = plan.perMinute / 60;
    const slowed = plan.name === "free" && this.deps.load.value >= this.settings.peakInflightThreshold;
    return { capacity: plan.perMinute, refillPerSecond: slowed ? perSecond * this.settings.peakFreeRefillFactor : perSecond };
  }

  /**
   * Takes one token from the key's bucket. Throws 503 only in closed mode during an outage. Answers at once (no
   * promise) when no store round trip is needed: the in-memory store, a lease with tokens left, an outage.
   * `meter` is what the decision is counted under: the plan's name unless the bucket is not a plan's.
   */
  check(keyId: string, plan: Plan, meter: LimitMeter = plan.name): LimitOutcome | Promise<LimitOutcome> {
    if (!metricsEnabled()) return this.decide(keyId, plan);
    try {
      const outcome = this.decide(keyId, plan);
      if (!(outcome instanceof Promise)) return this.counted(meter, outcome);
      return outcome.then(
        (decided) => this.counted(meter, decided),
        (error: unknown) => {
          metrics.limiterDecisions.inc(DECISION_LABELS[meter].failed_closed);
          throw error;
        },
      );
    } catch (error) {
      metrics.limiterDecisions.inc(DECISION_LABELS[meter].failed_closed);
      throw error;
    }
  }

  private decide(keyId: string, plan: Plan): LimitOutcome | Promise<LimitOutcome> {
    // The limit is part of the key: a plan change starts a fresh bucket of the new size at once.
    const key = `${this.settings.keyPrefix}rl:${keyId}:${plan.perMinute}`;
    const policy = this.policyFor(plan);
    if (this.store === this.fallback) return { ...this.memoryTake(key, policy), plan, degraded: false };

    // During an outage no request waits on the store: each is decided at once, and a probe in the background
    // (at most one per interval) finds out when the store is back. Only the call that discovers an outage (a
    // hung store, or one still reconnecting) waits, at most the timeout.
    if (this.outage) {
      this.probe();
      return this.degraded(key, policy, plan);
    }
    let decision: Decision | Promise<Decision>;
    try {
      decision = this.leases && leased(policy) ? this.leases.take(key, policy) : this.roundTrip(this.store.take(key, policy));
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
    void this.roundTrip(this.store.take(`${this.settings.keyPrefix}rl:probe`, PROBE_POLICY))
      .then(() => {
        this.deps.log.info("rate limit store recovered", { store: this.store.name, outage_ms: this.deps.clock.now() - outage.since });
        this.outageSeconds += this.ongoingOutageSeconds();
        this.outage = null;
      })
      .catch(() => {
        outage.nextProbeAt = this.deps.clock.now() + PROBE_INTERVAL_MS;
      })
      .finally(() => {
        this.probing = false;
      });
  }

  /**
   * The in-memory store as the configured one: its "round trip" is a lookup in this process, counted like the
   * others' so the series exist on every deployment, but not timed: a lookup's 100 ns say nothing, and observing
   * them cost three times the lookup.
   */
  private memoryTake(key: string, policy: BucketPolicy): Decision {
    metrics.limiterStoreRoundTrips.inc(this.roundTripLabels.ok);
    return this.fallback.takeNow(key, policy);
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
    for (const unregister of this.unregister) unregister();
    await this.store.close();
    if (this.fallback !== this.store) await this.fallback.close();
  }
}
