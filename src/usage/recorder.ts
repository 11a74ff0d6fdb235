/**
 * Usage records (account, key, route, tokens, status, cost, time) for every
 * authenticated call, as each call hands them over (http/call.ts), with the
 * money that moves: a paying call costs tokens x PRICE_PER_MILLION_TOKENS
 * (the free plan is never charged; Pro balances are debited; Enterprise is
 * invoiced), and a run of someone else's published endpoint credits its
 * publisher PUBLISHER_SHARE of that cost as earnings.
 *
 * A record that moves money (a billable call that succeeded) is committed in
 * the call's own path, before its answer is sent, in one statement with its
 * debit: research calls take seconds, so one insert is cheap, and a process
 * killed a millisecond after the answer has lost nothing (a record held in
 * memory until a flush would be lost with it). Every other record moves no
 * money and is written in batches off the request path. Both are idempotent
 * by the call's event id (ledger.ts): a record written twice is one row and
 * one debit. Nothing is ever dropped: while the database refuses writes, or
 * too many records wait, calls are refused before they run (accepting()).
 */
import type { Database } from "../../db/client.ts";
import { usageUnavailable, type UsageEvent, type UsageSink } from "../call-usage.ts";
import { planFor } from "../limits/plans.ts";
import type { Logger } from "../log.ts";
import { gaugeFrom, metrics } from "../observe/metrics.ts";
import { newId } from "../ids.ts";
import { writeLedger } from "./ledger.ts";
import type { UsageWrite } from "./queries.ts";

export interface Pricing {
  perMillionTokens: number;
  publisherShare: number;
}

export interface RecorderOptions {
  flushIntervalMs: number;
  batchSize: number;
  /** Past this many records waiting for a batch, new calls are refused until they are written (none is dropped). */
  maxPending: number;
  /** After a failed write, how long billable calls are refused before the next one tries again. */
  failureBackoffMs: number;
  /** Billable calls' statements written at once; records arriving while all are busy wait and go together. */
  commitsInFlight: number;
  /** Told of each account whose balance a write debited: cached copies of it are stale from then on. */
  debited?: (accountId: string) => void;
}

export function priceOf(event: UsageEvent, pricing: Pricing): { costMicros: number; earningsMicros: number; debitMicros: number } {
  const plan = planFor(event.caller).name;
  // Dollars per million tokens times tokens is micro-dollars.
  const costMicros = plan === "free" || event.status >= 400 ? 0 : Math.round(event.tokens * pricing.perMillionTokens);
  const earns = event.publisher && event.publisher.accountId !== event.caller.accountId;
  return {
    costMicros,
    earningsMicros: earns ? Math.round(costMicros * pricing.publisherShare) : 0,
    debitMicros: plan === "pro" ? costMicros : 0,
  };
}

const OUTBOX_FULL = { reason: "outbox_full" };
const WRITES_FAILING = { reason: "writes_failing" };

/** A billable call's record waiting to be committed, and its call waiting on it. */
interface Commit {
  entry: UsageWrite;
  resolve(): void;
  reject(error: unknown): void;
}

export class UsageRecorder implements UsageSink {
  private pending: UsageWrite[] = [];
  private flushing: Promise<void> | undefined;
  private committing: Commit[] = [];
  /** The group commits in flight. */
  private readonly commits = new Set<Promise<void>>();
  /** Whether this turn's commits are waiting for its end (commit()). */
  private gathering = false;
  private readonly gathered = () => {
    this.gathering = false;
    this.pump();
  };
  /** When the last write failed (performance.now()), or undefined while writes succeed. */
  private failedAt: number | undefined;
  private readonly options: RecorderOptions;
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly unmeasure: () => void;

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    private readonly pricing: Pricing,
    options: Partial<RecorderOptions> = {},
  ) {
    this.options = { flushIntervalMs: 1_000, batchSize: 500, maxPending: 200_000, failureBackoffMs: 2_000, commitsInFlight: 4, ...options };
    this.timer = setInterval(() => void this.flush(), this.options.flushIntervalMs);
    this.timer.unref?.();
    // The outbox: records waiting for a batch, and billable calls' records waiting for their commit.
    this.unmeasure = gaugeFrom("usage_outbox_depth", () => this.pending.length + this.committing.length);
  }

  record(event: UsageEvent): void {
    this.pending.push(this.entryOf(event));
    // One flush at a time: while one writes, records pile up for the next (it follows at once when a batch waits).
    // After a failed write only the timer retries, so an unreachable database is not asked once per call.
    if (this.pending.length >= this.options.batchSize && !this.flushing && this.failedAt === undefined) void this.flush();
  }

  /**
   * Group commit: the records of one turn of the event loop go together, at
   * its end, while fewer than `commitsInFlight` statements are being written;
   * those that arrive while all are busy go together in the next. A busy
   * instance commits many calls per statement, and no call waits for a timer.
   * The turn matters on the embedded database: PGlite runs a statement on
   * this thread, so a record that started one at once held the loop until it
   * ended, and the calls behind it each found nothing in flight and wrote a
   * statement of their own (cached /v1/contents: one statement per call, at
   * a tenth of the throughput).
   */
  commit(event: UsageEvent): Promise<void> {
    const entry = this.entryOf(event);
    const committed = new Promise<void>((resolve, reject) => this.committing.push({ entry, resolve, reject }));
    if (!this.gathering) {
      this.gathering = true;
      setImmediate(this.gathered);
    }
    return committed;
  }

  accepting(billable: boolean): boolean {
    if (this.pending.length >= this.options.maxPending) {
      metrics.usageCallsRefused.inc(OUTBOX_FULL);
      return false;
    }
    // One call in each back-off tries the database again: its commit tells whether it is back.
    if (billable && this.failedAt !== undefined && performance.now() - this.failedAt < this.options.failureBackoffMs) {
      metrics.usageCallsRefused.inc(WRITES_FAILING);
      return false;
    }
    return true;
  }

  /** Writes everything recorded so far. Concurrent calls share one write. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.flushing = (async () => {
      try {
        await this.write(batch);
        this.failedAt = undefined;
      } catch (error) {
        this.failedAt = performance.now();
        this.log.error("usage records not written; will retry", { count: batch.length, error });
        this.pending = batch.concat(this.pending);
      }
    })().finally(() => {
      this.flushing = undefined;
      if (this.pending.length >= this.options.batchSize && this.failedAt === undefined) void this.flush();
    });
    await this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.unmeasure();
    // Records gathered in this turn have no statement yet: they start theirs now.
    while (this.commits.size > 0 || this.committing.length > 0) {
      this.pump();
      await Promise.all(this.commits);
    }
    await this.flush();
  }

  /** Starts group commits while statements may be added and records wait: called at the end of a turn with commits, and at every group's end. */
  private pump(): void {
    while (this.commits.size < this.options.commitsInFlight && this.committing.length > 0) {
      const group = this.committing.splice(0, this.options.batchSize);
      const committed = this.commitGroup(group).finally(() => {
        this.commits.delete(committed);
        this.pump();
      });
      this.commits.add(committed);
    }
  }

  private async commitGroup(group: Commit[]): Promise<void> {
    const entries = group.map((commit) => commit.entry);
    try {
      // Tried twice before the calls are failed: a write is idempotent by event id, and one lost to a passing fault (a
      // dropped connection, a serialisation failure) should not cost answers.
      await this.write(entries).catch(() => this.write(entries));
      this.failedAt = undefined;
      for (const commit of group) commit.resolve();
    } catch (error) {
      this.failedAt = performance.now();
      this.log.error("billable calls' usage not written; their answers are withheld", {
        request_ids: group.map((commit) => commit.entry.request_id),
        error,
      });
      for (const commit of group) commit.reject(usageUnavailable());
    }
  }

  private async write(entries: UsageWrite[]): Promise<void> {
    const debited = await writeLedger(this.db, entries, this.options.batchSize);
    for (const accountId of debited) this.options.debited?.(accountId);
  }

  private entryOf(event: UsageEvent): UsageWrite {
    const price = priceOf(event, this.pricing);
    return {
      account_id: event.caller.accountId,
      api_key_id: event.caller.keyId,
      route: event.route,
      status: event.status,
      tokens: event.tokens,
      cost_micros: price.costMicros,
      publisher_account_id: event.publisher?.accountId ?? null,
      published_id: event.publisher?.publishedId ?? null,
      api_id: event.apiId ?? null,
      earnings_micros: price.earningsMicros,
      request_id: event.requestId,
      // A record made without a call (a script, a test) is its own event.
      event_id: event.eventId ?? newId("use"),
      // A dashboard session's caller has no key; so has a task its session started (tasks/run.ts), which is its kind too.
      auth: event.caller.keyId === null ? "session" : "key",
      billable: event.billable ?? false,
      latency_ms: event.latencyMs ?? null,
      created_at: event.at.getTime(),
      debit_micros: price.debitMicros,
    };
  }
}
