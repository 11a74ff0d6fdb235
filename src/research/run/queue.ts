/**
 * Admission of research runs in this instance: at most `concurrency` run at
 * once, the rest wait in a bounded queue, and a run that finds the queue
 * full is refused at once (503 queue_full, with Retry-After) rather than
 * waiting without end. A thousand runs started together otherwise all
 * advance together: each one's first `context` comes as late as the last
 * one's, and all of their pages sit in memory at the same time. Queued,
 * they start in turn and each finishes in about the time it needs alone.
 *
 * Fair: each account waits in a lane of its own, in the order its runs
 * asked (FIFO). A freed slot goes to the waiting account with the fewest
 * runs executing, and among equals to the lanes in turn (round-robin): an
 * account with a thousand runs waiting, or holding every slot, delays
 * another account's run by one slot freeing, not by a thousand runs. No slot
 * is kept idle for fairness: with nobody else waiting, one account may use
 * them all. A waiter whose signal aborts (its caller went away, or its
 * deadline passed) leaves the queue at once and never runs.
 */
import type { Clock } from "../../clock.ts";
import { ServiceError } from "../../errors.ts";
import { throttledLog, type Logger } from "../../log.ts";

export interface RunQueueSettings {
  /** Runs executing at once. */
  concurrency: number;
  /** Runs waiting beyond those; one more is refused. */
  maxQueued: number;
}

/** What /readyz reports: runs executing, runs waiting, and the two bounds. */
export interface QueueDepth {
  running: number;
  queued: number;
  capacity: number;
  queueMax: number;
}

/** A run's place to execute: how long it waited for it, and how many were waiting ahead when it asked. */
export interface RunSlot {
  waitedMs: number;
  ahead: number;
  /** Frees the slot for the next waiter; only the first call does. */
  release(): void;
}

interface Waiter {
  since: number;
  ahead: number;
  grant(slot: RunSlot): void;
}

const RETRY_AFTER_SECONDS = 5;
const NOTICE_INTERVAL_MS = 10_000;

export class RunQueue {
  private running = 0;
  private queued = 0;
  /** Runs executing, by account. */
  private readonly runningOf = new Map<string, number>();
  /** Waiting runs by account; the map's order is the turn order (a lane served moves to the back). */
  private readonly lanes = new Map<string, Waiter[]>();
  private readonly notice: (msg: string, fields?: Record<string, unknown>) => void;
  private readonly warn: (msg: string, fields?: Record<string, unknown>) => void;

  constructor(
    private readonly settings: RunQueueSettings,
    private readonly clock: Clock,
    log: Logger,
  ) {
    // Under sustained load these would repeat for every run: once per interval, with how many were skipped.
    this.notice = throttledLog(log, "info", NOTICE_INTERVAL_MS, clock);
    this.warn = throttledLog(log, "warn", NOTICE_INTERVAL_MS, clock);
  }

  depth(): QueueDepth {
    return { running: this.running, queued: this.queued, capacity: this.settings.concurrency, queueMax: this.settings.maxQueued };
  }

  /**
   * A slot for one of `account`'s runs: at once when one is free, else when
   * its turn comes. Rejects with queue_full when the queue is full, and with
   * the signal's reason as soon as the signal aborts while waiting.
   */
  admit(account: string, signal: AbortSignal): Promise<RunSlot> {
    if (signal.aborted) return Promise.reject(signal.reason);
    // Slots are handed out as they free, so a free slot means nobody is waiting: no one is overtaken.
    if (this.running < this.settings.concurrency) return Promise.resolve(this.grant(account, null, 0));
    if (this.queued >= this.settings.maxQueued) {
      this.warn("run queue full; refusing runs", this.fields());
      return Promise.reject(
        new ServiceError(
          "queue_full",
          `this instance is at capacity (${this.queued} research runs waiting), try again in ${RETRY_AFTER_SECONDS} seconds`,
          { retryAfterSeconds: RETRY_AFTER_SECONDS },
        ),
      );
    }
    return new Promise<RunSlot>((resolve, reject) => {
      const leave = () => {
        this.remove(account, waiter);
        reject(signal.reason);
      };
      const waiter: Waiter = {
        since: this.clock.now(),
        ahead: this.queued,
        grant: (slot) => {
          signal.removeEventListener("abort", leave);
          resolve(slot);
        },
      };
      signal.addEventListener("abort", leave, { once: true });
      const lane = this.lanes.get(account);
      if (lane) lane.push(waiter);
      else this.lanes.set(account, [waiter]);
      this.queued++;
      this.notice("runs are queueing", this.fields());
    });
  }

  private grant(account: string, since: number | null, ahead: number): RunSlot {
    this.running++;
    this.runningOf.set(account, (this.runningOf.get(account) ?? 0) + 1);
    let released = false;
    return {
      waitedMs: since === null ? 0 : this.clock.now() - since,
      ahead,
      release: () => {
        if (released) return;
        released = true;
        this.running--;
        const left = this.runningOf.get(account)! - 1;
        if (left) this.runningOf.set(account, left);
        else this.runningOf.delete(account);
        this.next();
      },
    };
  }

  /**
   * Hands free slots out: to the lane whose account runs the fewest, the
   * first such lane in turn order; its oldest waiter runs, and the lane goes
   * to the back of the turn order.
   */
  private next(): void {
    while (this.running < this.settings.concurrency && this.queued > 0) {
      let chosen: [string, Waiter[]] | undefined;
      for (const entry of this.lanes) {
        if (!chosen || (this.runningOf.get(entry[0]) ?? 0) < (this.runningOf.get(chosen[0]) ?? 0)) chosen = entry;
        if (!this.runningOf.has(chosen[0])) break; // nobody runs fewer than none
      }
      const [account, lane] = chosen!;
      const waiter = lane.shift()!;
      this.lanes.delete(account);
      if (lane.length) this.lanes.set(account, lane);
      this.queued--;
      waiter.grant(this.grant(account, waiter.since, waiter.ahead));
    }
  }

  private remove(account: string, waiter: Waiter): void {
    const lane = this.lanes.get(account);
    const index = lane?.indexOf(waiter) ?? -1;
    if (!lane || index < 0) return;
    lane.splice(index, 1);
    if (lane.length === 0) this.lanes.delete(account);
    this.queued--;
  }

  private fields() {
    return { running: this.running, queued: this.queued, capacity: this.settings.concurrency, queue_max: this.settings.maxQueued };
  }
}
