/**
 * A circuit breaker per search provider: after `threshold` failures in a row
 * the provider is skipped for `cooldownMs`, then one trial call decides
 * whether it is back. A provider that keeps failing costs nothing per run.
 */
import type { Clock } from "../clock.ts";

export class CircuitBreaker {
  private failures = 0;
  private openUntil = 0;
  private trial = false;

  constructor(
    private readonly clock: Clock,
    private readonly threshold = 5,
    private readonly cooldownMs = 30_000,
  ) {}

  /** Whether a call may go out now (an open breaker lets one trial through after the cooldown). */
  allow(): boolean {
    if (this.failures < this.threshold) return true;
    if (this.clock.now() < this.openUntil || this.trial) return false;
    this.trial = true;
    return true;
  }

  /** For the provider_breaker_state gauge: 0 closed, 1 half-open (its cooldown over, a trial due or out), 2 open. */
  state(): 0 | 1 | 2 {
    if (this.failures < this.threshold) return 0;
    return this.clock.now() < this.openUntil ? 2 : 1;
  }

  succeeded(): void {
    this.failures = 0;
    this.trial = false;
  }

  failed(): void {
    this.failures++;
    this.trial = false;
    if (this.failures >= this.threshold) this.openUntil = this.clock.now() + this.cooldownMs;
  }
}
