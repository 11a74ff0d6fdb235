/** Time is injected so tests move a clock instead of sleeping. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that also wakes a callback later: what a grace that ends a wait needs (research/read-grace.ts). */
export interface TimerClock extends Clock {
  /** Calls `fire` once `ms` have passed; the function returned cancels it. */
  after(ms: number, fire: () => void): () => void;
}

/** Durations from the monotonic clock, so a wall-clock step never shortens or stretches a grace. */
export const monotonicTimers: TimerClock = {
  now: () => performance.now(),
  after(ms, fire) {
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  },
};

export class ManualClock implements TimerClock {
  private readonly timers = new Set<{ at: number; fire: () => void }>();

  constructor(private current = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.current;
  }
  /** Moves the time on, firing the timers that come due, in order. */
  advance(ms: number): void {
    const until = this.current + ms;
    for (;;) {
      const due = [...this.timers].filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers.delete(due);
      this.current = Math.max(this.current, due.at);
      due.fire();
    }
    this.current = until;
  }
  /** Moves the time on without firing timers, as a busy process does: the next advance fires those due, late. */
  stall(ms: number): void {
    this.current += ms;
  }
  after(ms: number, fire: () => void): () => void {
    const timer = { at: this.current + ms, fire };
    this.timers.add(timer);
    return () => this.timers.delete(timer);
  }
}
