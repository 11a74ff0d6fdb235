/**
 * Read grace: a run does not wait for its slowest page read once it has
 * most of its pages, as the fan-out does not wait for its slowest provider
 * (quorum.ts). Once `share` of the run's reads are in (read, from the cache,
 * or failed), each read still waiting for its site gets a grace,
 * `graceFactor` times the median time sites took to answer on this instance
 * (bounded by `graceMinMs` and `graceMaxMs`; the longest before any site has
 * answered, since there is nothing to scale it by), and is cut when the
 * grace ends: the run stops waiting for it and answers from its search
 * snippet instead. A read whose site has answered is not cut: what is left
 * is extracting the page, this process's own work, and the longest to
 * extract are the largest pages, which a grace would cut first. The fetch
 * itself is shared with any other reader of the URL, so it goes on in the
 * background and its page lands in the cache like any other (read.ts).
 */
import { monotonicTimers, type TimerClock } from "../clock.ts";
import type { CallLatencies } from "./call-latencies.ts";

export interface ReadGraceSettings {
  enabled: boolean;
  /** The share of the run's reads that must be in before a grace starts. */
  share: number;
  /** A slow read's grace, as a multiple of the median page-read time. */
  graceFactor: number;
  graceMinMs: number;
  graceMaxMs: number;
}

/** The reason a cut read's signal carries. */
export class ReadCut extends Error {
  constructor(
    readonly graceMs: number,
    readonly waitedMs: number,
  ) {
    super("cut after grace (straggler)");
  }
}

/** One page read as the grace sees it: its signal is the run's, aborted with a ReadCut when the read is cut. */
export interface GracedRead {
  readonly signal: AbortSignal;
}

interface Outstanding extends GracedRead {
  readonly startedAt: number;
  readonly cut: AbortController;
  cancel?: () => void;
  /** The site has answered: the read is no longer cut. */
  fetched?: boolean;
}

export interface ReadGraceOptions {
  settings: ReadGraceSettings;
  /** How many pages the run reads. */
  reads: number;
  /** The recent times sites took to answer a read on this instance (a cache hit says nothing of the web). */
  latencies: CallLatencies;
  signal: AbortSignal;
  clock?: TimerClock;
}

export class ReadGrace {
  private readonly outstanding = new Set<Outstanding>();
  private readonly clock: TimerClock;
  private settled = 0;
  private reached = false;

  constructor(private readonly options: ReadGraceOptions) {
    this.clock = options.clock ?? monotonicTimers;
  }

  /** A read begins; `startedAt` (on this grace's clock) when it began earlier, as an early read does. */
  begin(startedAt = this.clock.now()): GracedRead {
    const cut = new AbortController();
    const read: Outstanding = { startedAt, cut, signal: AbortSignal.any([this.options.signal, cut.signal]) };
    this.outstanding.add(read);
    // A queued read may begin after all those before it are in: the share may already be.
    if (!this.reached) this.reached = this.holds();
    if (this.reached) this.startGrace(read);
    return read;
  }

  /** The site answered (at `at` on this grace's clock, or now): its time goes toward the median, and the read is no longer cut. */
  fetched(read: GracedRead, at = this.clock.now()): void {
    const waiting = read as Outstanding;
    if (!this.outstanding.has(waiting) || waiting.fetched) return;
    waiting.fetched = true;
    waiting.cancel?.();
    this.options.latencies.record(at - waiting.startedAt);
  }

  /** The read is over, however it ended (idempotent). */
  settle(read: GracedRead): void {
    const waiting = read as Outstanding;
    if (!this.outstanding.delete(waiting)) return;
    waiting.cancel?.();
    this.settled++;
    if (!this.reached && this.holds()) {
      this.reached = true;
      for (const other of this.outstanding) this.startGrace(other);
    }
  }

  /** Why the read ended, when the grace cut it. */
  cutOf(read: GracedRead): ReadCut | undefined {
    const reason: unknown = (read as Outstanding).cut.signal.reason;
    return reason instanceof ReadCut ? reason : undefined;
  }

  private holds(): boolean {
    const { settings, reads, signal } = this.options;
    return settings.enabled && !signal.aborted && this.settled >= settings.share * reads;
  }

  private startGrace(read: Outstanding): void {
    if (read.fetched) return;
    const graceMs = readGraceMs(this.options.settings, this.options.latencies.median());
    this.armCut(read, graceMs, graceMs, 0);
  }

  /**
   * The cut comes `ms` from now, unless the timer fires late: then the
   * process was too busy to hear a site's answer in time (it may be waiting
   * in the socket), so the read gets as long again as the timer was late,
   * up to `graceMaxMs` in all beyond its grace.
   */
  private armCut(read: Outstanding, ms: number, graceMs: number, extendedMs: number): void {
    const dueAt = this.clock.now() + ms;
    read.cancel = this.clock.after(ms, () => {
      if (!this.outstanding.has(read)) return;
      const lateMs = Math.round(this.clock.now() - dueAt);
      if (lateMs > LATE_TIMER_MS && extendedMs + lateMs <= this.options.settings.graceMaxMs) {
        this.armCut(read, lateMs, graceMs + lateMs, extendedMs + lateMs);
        return;
      }
      const waitedMs = Math.round(this.clock.now() - read.startedAt);
      // As long as it waited, a lower bound of its time: pages that became slower raise the median and their grace.
      this.options.latencies.record(waitedMs);
      this.settle(read);
      read.cut.abort(new ReadCut(graceMs, waitedMs));
    });
  }
}

/** A timer this late says the process was busy, not that the site was slow (a timer on an idle loop is a few ms late). */
const LATE_TIMER_MS = 20;

/** The grace a read still out gets: the factor times the median, within the bounds; the longest with no median yet. */
export function readGraceMs(settings: ReadGraceSettings, median: number | undefined): number {
  const { graceFactor, graceMinMs, graceMaxMs } = settings;
  return median === undefined ? graceMaxMs : Math.round(Math.min(graceMaxMs, Math.max(graceMinMs, graceFactor * median)));
}
