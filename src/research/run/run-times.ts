/**
 * How long research runs hold their slot lately, as the run queue estimates
 * a wait from it: the last few durations in a ring (a bounded moving window,
 * so the estimate follows the load as it changes), their mean and a slow one.
 * A wait behind many runs is their mean; one run of its own may be a slow one.
 */

/** Runs the estimate follows: enough that one odd run moves it little, few enough that it follows the load within seconds. */
export const RUN_TIMES_WINDOW = 32;
/** The slow run: this share of recent runs took at most as long. */
const SLOW_SHARE = 0.9;

export interface RunTimeEstimate {
  /** The mean duration of recent runs, in ms. */
  meanMs: number;
  /** A slow recent run's duration (the 90th percentile), in ms. */
  slowMs: number;
}

export class RecentRunTimes {
  private readonly ring: number[] = [];
  private next = 0;
  private current: RunTimeEstimate | undefined;

  constructor(private readonly window = RUN_TIMES_WINDOW) {}

  /** Undefined until a run has ended: with nothing measured there is nothing to estimate from. */
  estimate(): RunTimeEstimate | undefined {
    return this.current;
  }

  add(ms: number): void {
    if (this.ring.length < this.window) this.ring.push(ms);
    else this.ring[this.next] = ms;
    this.next = (this.next + 1) % this.window;
    // Worked out once per run ended, not per run admitted: admissions outnumber ends under load.
    const sorted = [...this.ring].sort((a, b) => a - b);
    const slow = sorted[Math.min(sorted.length - 1, Math.ceil(SLOW_SHARE * sorted.length) - 1)]!;
    this.current = { meanMs: sorted.reduce((sum, v) => sum + v, 0) / sorted.length, slowMs: slow };
  }
}
