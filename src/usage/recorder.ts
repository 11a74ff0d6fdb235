/**
 * Usage records (account, key, route, tokens, status, time) for every
 * authenticated call, written in batches off the request path. A failed
 * batch is retried on the next flush (bounded), and close() flushes what is
 * left, so a graceful shutdown loses nothing.
 */
import type { Database } from "../../db/client.ts";
import { usageRecords } from "../../db/schema.ts";
import type { Logger } from "../log.ts";

export type UsageEntry = typeof usageRecords.$inferInsert;

const MAX_PENDING = 50_000;

export class UsageRecorder {
  private pending: UsageEntry[] = [];
  private flushing: Promise<void> | undefined;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    private readonly options: { flushIntervalMs: number; batchSize: number } = { flushIntervalMs: 1_000, batchSize: 500 },
  ) {
    this.timer = setInterval(() => void this.flush(), options.flushIntervalMs);
    this.timer.unref?.();
  }

  record(entry: UsageEntry): void {
    if (this.pending.length >= MAX_PENDING) {
      this.log.warn("usage buffer full; dropping the oldest record", { pending: this.pending.length });
      this.pending.shift();
    }
    this.pending.push(entry);
    if (this.pending.length >= this.options.batchSize) void this.flush();
  }

  /** Writes everything recorded so far. Concurrent calls share one write. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.flushing = (async () => {
      try {
        for (let i = 0; i < batch.length; i += this.options.batchSize) {
          await this.db.insert(usageRecords).values(batch.slice(i, i + this.options.batchSize));
        }
      } catch (error) {
        this.log.error("usage records not written; will retry", { count: batch.length, error });
        this.pending = batch.concat(this.pending).slice(-MAX_PENDING);
      }
    })().finally(() => {
      this.flushing = undefined;
    });
    await this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
