/**
 * Read grace: a run does not wait for its slowest page read once it has
 * most of its pages, as the fan-out does not wait for its slowest provider
 * (quorum.ts). Once `share` of the run's reads are in (read, from the cache,
 * or failed), each read still out gets a grace, `graceFactor` times the
 * median page-read time on this instance (bounded by `graceMinMs` and
 * `graceMaxMs`; the longest before any page has been read, since there is
 * nothing to scale it by), and is cut when the grace ends: the run stops
 * waiting for it and answers from its search snippet instead. The fetch
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
}

export interface ReadGraceOptions {
  settings: ReadGraceSettings;
  /** How many pages the run reads. */
  reads: number;
  /** The recent page-read times on this instance (fresh reads only: a cache hit says nothing of the web). */
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

  /** The page arrived: a fresh read's time goes toward the median. */
  arrived(read: GracedRead, fresh: boolean): void {
    const waiting = read as Outstanding;
    if (!this.outstanding.has(waiting)) return;
    if (fresh) this.options.latencies.record(this.clock.now() - waiting.startedAt);
    this.settle(read);
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
    const graceMs = readGraceMs(this.options.settings, this.options.latencies.median());
    read.cancel = this.clock.after(graceMs, () => {
      if (!this.outstanding.has(read)) return;
      const waitedMs = Math.round(this.clock.now() - read.startedAt);
      // As long as it waited, a lower bound of its time: pages that became slower raise the median and their grace.
      this.options.latencies.record(waitedMs);
      this.settle(read);
      read.cut.abort(new ReadCut(graceMs, waitedMs));
    });
  }
}

/** The grace a read still out gets: the factor times the median, within the bounds; the longest with no median yet. */
export function readGraceMs(settings: ReadGraceSettings, median: number | undefined): number {
  const { graceFactor, graceMinMs, graceMaxMs } = settings;
  return median === undefined ? graceMaxMs : Math.round(Math.min(graceMaxMs, Math.max(graceMinMs, graceFactor * median)));
}
