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
 *
 * Refused early: a run that would not finish within its deadline is not made
 * to wait for it. From how long recent runs held their slot (run-times.ts),
 * a run's wait is its place in the queue × a run's mean time ÷ the slots;
 * when that wait and a slow run of its own go past its deadline it is
 * refused at once with queue_full and a Retry-After of that wait, not
 * answered 504 when its deadline comes. Each time a run ends the estimate
 * changes, and the waiters are weighed again, with a doubt: one is refused
 * when its wait, shortened by WAIT_DOUBT, and a slow run of its own still go
 * past its deadline. The estimate is least sure far from a run's turn and
 * early in a burst (measured: the first seconds of a thousand searches at
 * once ran at about two thirds of the pace of the seconds after them), and a
 * refusal cannot be taken back: so a waiter is sent away only once it is
 * clearly late. The doubt shrinks with the wait; near its turn a run must
 * still have the time of a slow run left, so none starts that would
 * likely be cut at its deadline. The doubt is also the margin between
 * arriving and waiting: a waiter is not sent away on every uptick of an
 * estimate that admitted it. Before any run has ended nothing is refused on
 * an estimate.
 */
import type { Clock } from "../../clock.ts";
import { ServiceError } from "../../errors.ts";
import { throttledLog, type Logger } from "../../log.ts";
import { metrics } from "../../observe/metrics.ts";
import { gaugeOf } from "../../observe/weak-gauge.ts";
import { waitWords } from "../../wait-words.ts";
import { RecentRunTimes, type RunTimeEstimate } from "./run-times.ts";

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
  /** When its caller stops waiting, on the queue's clock; undefined: no deadline, never refused early. */
  deadline: number | undefined;
  grant(slot: RunSlot): void;
  refuse(error: ServiceError): void;
}

const RETRY_AFTER_SECONDS = 5;
const NO_LABELS = {};
/** Retry-After of an early refusal: its estimated wait, within these bounds. */
const RETRY_AFTER_MIN_SECONDS = 1;
const RETRY_AFTER_MAX_SECONDS = 60;
const NOTICE_INTERVAL_MS = 10_000;
/**
 * The share of a waiter's estimated wait that may yet not come to pass: it is refused only when its wait shortened by
 * this share still ends late. In bench:streams (1,000 searches at once) the estimate of the burst's first seconds was a
 * mean run of 1.9 s, and the runs of the next 30 s took 0.9 to 1.6 s.
 */
export const WAIT_DOUBT = 0.3;

export class RunQueue {
  private running = 0;
  private queued = 0;
  /** Runs executing, by account. */
  private readonly runningOf = new Map<string, number>();
  /** Waiting runs by account; the map's order is the turn order (a lane served moves to the back). */
  private readonly lanes = new Map<string, Waiter[]>();
  private readonly times = new RecentRunTimes();
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
    // Read when scraped, from the counts admission itself keeps: nothing to drift.
    gaugeOf(this, "runs_running", (queue) => queue.running);
    gaugeOf(this, "runs_queued", (queue) => queue.queued);
  }

  depth(): QueueDepth {
    return { running: this.running, queued: this.queued, capacity: this.settings.concurrency, queueMax: this.settings.maxQueued };
  }

  /**
   * A slot for one of `account`'s runs: at once when one is free, else when
   * its turn comes. Rejects with queue_full when the queue is full or the run
   * would not finish by `deadline` (on the queue's clock), and with the
   * signal's reason as soon as the signal aborts while waiting.
   */
  admit(account: string, signal: AbortSignal, deadline?: number): Promise<RunSlot> {
    if (signal.aborted) return Promise.reject(signal.reason);
    // Slots are handed out as they free, so a free slot means nobody is waiting: no one is overtaken.
    if (this.running < this.settings.concurrency) return Promise.resolve(this.grant(account, null, 0));
    if (this.queued >= this.settings.maxQueued) {
      this.warn("run queue full; refusing runs", this.fields());
      metrics.runsRefused.inc({ reason: "queue_full" });
      return Promise.reject(
        new ServiceError(
          "queue_full",
          `this instance is at capacity (${this.queued} research runs waiting), try again in ${RETRY_AFTER_SECONDS} seconds`,
          { retryAfterSeconds: RETRY_AFTER_SECONDS },
        ),
      );
    }
    const late = this.tooLate(this.aheadAt(this.lanes.get(account)?.length ?? 0), deadline, "arriving");
    if (late) {
      this.warn("research runs would wait past their deadline; refusing them", { ...this.fields(), wait_ms: Math.round(late.waitMs) });
      metrics.runsRefused.inc({ reason: "deadline" });
      return Promise.reject(refusal("a research run would wait", late.waitMs));
    }
    return new Promise<RunSlot>((resolve, reject) => {
      const leave = () => {
        this.remove(account, waiter);
        reject(signal.reason);
      };
      const waiter: Waiter = {
        since: this.clock.now(),
        ahead: this.queued,
        deadline,
        grant: (slot) => {
          signal.removeEventListener("abort", leave);
          resolve(slot);
        },
        refuse: (error) => {
          signal.removeEventListener("abort", leave);
          this.remove(account, waiter);
          reject(error);
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

  private waitMs(ahead: number, estimate: RunTimeEstimate): number {
    // Its turn comes when `ahead + 1` slots have freed, and the slots free `concurrency` per mean run.
    return ((ahead + 1) * estimate.meanMs) / this.settings.concurrency;
  }

  /**
   * The wait of a run with `ahead` before it, when it and a slow run of its
   * own would end past `deadline`: the whole wait for one arriving, the
   * wait less the doubt for one already waiting.
   */
  private tooLate(ahead: number, deadline: number | undefined, who: "arriving" | "waiting"): { waitMs: number } | undefined {
    const estimate = this.times.estimate();
    if (deadline === undefined || !estimate) return undefined;
    const waitMs = this.waitMs(ahead, estimate);
    const doubted = who === "arriving" ? waitMs : waitMs * (1 - WAIT_DOUBT);
    return this.clock.now() + doubted + estimate.slowMs > deadline ? { waitMs } : undefined;
  }

  /**
   * Runs served before the one at `index` of its lane: the lanes take turns,
   * so each lane's first `index` runs (as many as it has, if fewer). A lane
   * of an account running fewer may come sooner: the estimate leans short.
   */
  private aheadAt(index: number): number {
    if (index === 0) return 0;
    let ahead = 0;
    for (const lane of this.lanes.values()) ahead += Math.min(lane.length, index);
    return ahead;
  }

  /** Weighs every waiter again (the estimate changed): one that would no longer finish by its deadline is refused now. */
  private reweigh(): void {
    if (this.queued === 0 || !this.times.estimate()) return;
    // Runs before index i of any lane, for every i at once: ahead(i + 1) = ahead(i) + the lanes longer than i.
    let longest = 0;
    for (const lane of this.lanes.values()) longest = Math.max(longest, lane.length);
    const longer = new Array<number>(longest).fill(0);
    for (const lane of this.lanes.values()) longer[lane.length - 1]!++;
    for (let i = longest - 2; i >= 0; i--) longer[i]! += longer[i + 1]!;
    const ahead = [0];
    for (let i = 1; i < longest; i++) ahead.push(ahead[i - 1]! + longer[i - 1]!);
    const refused: [Waiter, number][] = [];
    for (const lane of this.lanes.values()) {
      let gone = 0;
      lane.forEach((waiter, index) => {
        // A waiter refused before it in its own lane no longer waits ahead of it.
        const late = this.tooLate(ahead[index - gone]!, waiter.deadline, "waiting");
        if (late) {
          refused.push([waiter, late.waitMs]);
          gone++;
        }
      });
    }
    if (refused.length === 0) return;
    this.warn("waiting research runs would not finish by their deadline; refusing them", { ...this.fields(), refused: refused.length });
    metrics.runsRefused.inc({ reason: "deadline" }, refused.length);
    for (const [waiter, waitMs] of refused) waiter.refuse(refusal("this research run would wait", waitMs));
  }

  private grant(account: string, since: number | null, ahead: number): RunSlot {
    this.running++;
    this.runningOf.set(account, (this.runningOf.get(account) ?? 0) + 1);
    let released = false;
    const granted = this.clock.now();
    const waitedMs = since === null ? 0 : granted - since;
    metrics.runQueueWait.observe(NO_LABELS, waitedMs / 1000);
    return {
      waitedMs,
      ahead,
      release: () => {
        if (released) return;
        released = true;
        this.times.add(this.clock.now() - granted);
        this.running--;
        const left = this.runningOf.get(account)! - 1;
        if (left) this.runningOf.set(account, left);
        else this.runningOf.delete(account);
        this.next();
        this.reweigh();
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

/**
 * The refusal of a run that would not finish in time: its estimated wait,
 * and a Retry-After of that wait (in whole seconds, bounded). It names no
 * deadline and no count: only what a caller can act on.
 */
function refusal(subject: string, waitMs: number): ServiceError {
  const waitSeconds = Math.ceil(waitMs / 1000);
  const retryAfterSeconds = Math.min(RETRY_AFTER_MAX_SECONDS, Math.max(RETRY_AFTER_MIN_SECONDS, waitSeconds));
  return new ServiceError(
    "queue_full",
    `this instance is at capacity (${subject} about ${waitWords(waitSeconds)} for a slot and not finish within its deadline), try again in ${waitWords(retryAfterSeconds)}`,
    { retryAfterSeconds },
  );
}
