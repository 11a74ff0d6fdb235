/**
 * Usage records (account, key, route, tokens, status, cost, time) for every
 * authenticated call, as each call hands them over (http/call.ts), written
 * in batches off the request path, with the
 * money that moves: a paying call costs tokens x PRICE_PER_MILLION_TOKENS
 * (the free plan is never charged; Pro balances are debited; Enterprise is
 * invoiced), and a run of someone else's published endpoint credits its
 * publisher PUBLISHER_SHARE of that cost as earnings. A batch (rows and
 * debits) is one transaction: a failed one is retried whole on the next
 * flush, and close() flushes what is left.
 */
import type { Database } from "../../db/client.ts";
import type { UsageEvent, UsageSink } from "../call-usage.ts";
import { debitBalance } from "../accounts/queries.ts";
import { planFor } from "../limits/plans.ts";
import type { Logger } from "../log.ts";
import { insertUsageRecords, type UsageRecordRow } from "./queries.ts";

export interface Pricing {
  perMillionTokens: number;
  publisherShare: number;
}

const MAX_PENDING = 50_000;

export interface RecorderOptions {
  flushIntervalMs: number;
  batchSize: number;
  /** Told of each account whose balance a flush debited: cached copies of it are stale from then on. */
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

export class UsageRecorder implements UsageSink {
  private pending: UsageRecordRow[] = [];
  private debits = new Map<string, number>();
  private flushing: Promise<void> | undefined;
  private failing = false;
  private readonly options: RecorderOptions;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    private readonly pricing: Pricing,
    options: Partial<RecorderOptions> = {},
  ) {
    this.options = { flushIntervalMs: 1_000, batchSize: 500, ...options };
    this.timer = setInterval(() => void this.flush(), options.flushIntervalMs);
    this.timer.unref?.();
  }

  record(event: UsageEvent): void {
    if (this.pending.length >= MAX_PENDING) {
      this.log.warn("usage buffer full; dropping the oldest record", { pending: this.pending.length });
      this.pending.shift();
    }
    const price = priceOf(event, this.pricing);
    this.pending.push({
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
      created_at: event.at,
    });
    if (price.debitMicros > 0) this.debits.set(event.caller.accountId, (this.debits.get(event.caller.accountId) ?? 0) + price.debitMicros);
    // One flush at a time: while one writes, records pile up for the next (it follows at once when a batch waits).
    // After a failed write only the timer retries, so an unreachable database is not asked once per call.
    if (this.pending.length >= this.options.batchSize && !this.flushing && !this.failing) void this.flush();
  }

  /** Writes everything recorded so far. Concurrent calls share one write. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.pending.length === 0 && this.debits.size === 0) return;
    const batch = this.pending;
    const debits = this.debits;
    this.pending = [];
    this.debits = new Map();
    this.flushing = (async () => {
      try {
        // Rows and debits in one transaction: a failure anywhere writes none of them, so the retry writes each once.
        await this.db.transaction(async (transaction) => {
          const tx = transaction as unknown as Database;
          for (let i = 0; i < batch.length; i += this.options.batchSize) {
            await insertUsageRecords(tx, batch.slice(i, i + this.options.batchSize));
          }
          for (const [accountId, micros] of debits) await debitBalance(tx, accountId, micros, new Date());
        });
        for (const accountId of debits.keys()) this.options.debited?.(accountId);
        this.failing = false;
      } catch (error) {
        this.failing = true;
        this.log.error("usage records not written; will retry", { count: batch.length, error });
        this.pending = batch.concat(this.pending).slice(-MAX_PENDING);
        for (const [accountId, micros] of debits) this.debits.set(accountId, (this.debits.get(accountId) ?? 0) + micros);
      }
    })().finally(() => {
      this.flushing = undefined;
      if (this.pending.length >= this.options.batchSize && !this.failing) void this.flush();
    });
    await this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
