/**
 * Webhooks, free of HTTP: messages stored and queued (emit), delivered by
 * this instance's workers on the shared job queue (deliver.ts), listed with
 * their attempts, delivered again on request; each account's signing secret
 * read and rotated. Every read is scoped to its account.
 */
import type { Database } from "../../db/client.ts";
import type { Clock } from "../clock.ts";
import type { SafeFetch } from "../contents/egress/safe-fetch.ts";
import { notFound, ServiceError } from "../errors.ts";
import { looksLikeId, newId } from "../ids.ts";
import type { JobQueue } from "../job-queue.ts";
import type { Logger } from "../log.ts";
import { DEFAULT_PAGE, pageCursor, pageOf } from "../paging.ts";
import { attemptDelivery } from "./deliver.ts";
import type { WebhookMessage, WebhookSink } from "./emit.ts";
import * as q from "./queries.ts";
import { newWebhookSecret } from "./signing.ts";

export const WEBHOOKS_QUEUE = "webhooks";

/** After a rotation the previous secret signs too for this long, so receivers can switch without missing a message. */
export const ROTATION_GRACE_MS = 24 * 3_600_000;

export interface WebhookSettings {
  /** Deliveries this instance makes at once (0: none; it still stores and queues them). */
  workers: number;
  retryBaseMs: number;
  /** How long a message is tried for. */
  retryWindowMs: number;
  timeoutMs: number;
  userAgent: string;
  retentionDays: number;
}

export interface WebhooksContext {
  db: Database;
  clock: Clock;
  log: Logger;
  jobs: JobQueue;
  fetcher: SafeFetch;
  settings: WebhookSettings;
}

interface DeliveryJob {
  delivery: string;
}

export class Webhooks implements WebhookSink {
  constructor(private readonly ctx: WebhooksContext) {
    const { settings } = ctx;
    ctx.jobs.define(
      WEBHOOKS_QUEUE,
      // Our own schedule retries a refused delivery (deliver.ts); pg-boss's retries are for an instance that died mid-attempt.
      { retryLimit: 2, retryDelay: 5, expireInSeconds: Math.ceil(settings.timeoutMs / 1000) + 60 },
      settings.workers === 0
        ? undefined
        : {
            options: { localConcurrency: settings.workers, pollingIntervalSeconds: 2 },
            handler: (data: DeliveryJob, signal) =>
              attemptDelivery(
                {
                  db: ctx.db,
                  clock: ctx.clock,
                  log: ctx.log,
                  fetcher: ctx.fetcher,
                  settings,
                  retry: (id, at) => this.queue(id, at),
                },
                data.delivery,
                signal,
              ),
          },
    );
  }

  async emit(message: WebhookMessage): Promise<string> {
    const now = new Date(this.ctx.clock.now());
    await q.ensureSecret(this.ctx.db, message.accountId, newWebhookSecret());
    const id = newId("msg", now.getTime());
    // The body Standard Webhooks suggests: the event's type, when it happened, and its data.
    const payload = JSON.stringify({ type: message.type, timestamp: now.toISOString(), data: message.data });
    await q.insertDelivery(this.ctx.db, {
      id,
      accountId: message.accountId,
      eventType: message.type,
      url: message.url,
      payload,
      status: "pending",
      nextAttemptAt: now,
      retryUntil: new Date(now.getTime() + this.ctx.settings.retryWindowMs),
      createdAt: now,
    });
    await this.queue(id, now);
    return id;
  }

  /** The account's secret (made on first read), and until when the previous one still signs. */
  async secret(accountId: string): Promise<q.SecretRow> {
    return q.ensureSecret(this.ctx.db, accountId, newWebhookSecret());
  }

  async rotate(accountId: string): Promise<q.SecretRow> {
    const now = this.ctx.clock.now();
    return q.rotateSecret(this.ctx.db, accountId, newWebhookSecret(), new Date(now), new Date(now + ROTATION_GRACE_MS));
  }

  async list(
    accountId: string,
    query: { status?: q.DeliveryStatus; limit?: number; cursor?: string },
  ): Promise<{ items: q.DeliveryRow[]; nextCursor: string | null }> {
    const limit = query.limit ?? DEFAULT_PAGE;
    const rows = await q.listDeliveries(this.ctx.db, accountId, { status: query.status, before: pageCursor("msg", query.cursor), limit });
    return pageOf(rows, limit);
  }

  async get(accountId: string, id: string): Promise<{ delivery: q.DeliveryRow; attempts: q.AttemptRow[] }> {
    const delivery = looksLikeId("msg", id) ? await q.findDelivery(this.ctx.db, accountId, id) : null;
    if (!delivery) throw notFound("delivery");
    return { delivery, attempts: await q.attemptsOf(this.ctx.db, id) };
  }

  /** Tries the message again now, with a new retry window; its id stays, so a receiver that has it already can tell. */
  async redeliver(accountId: string, id: string): Promise<q.DeliveryRow> {
    const { delivery } = await this.get(accountId, id);
    if (delivery.status === "pending")
      throw new ServiceError("conflict", "the delivery is still being tried; redeliver it once it has failed or been delivered");
    const now = this.ctx.clock.now();
    const reopened = await q.reopenDelivery(this.ctx.db, accountId, id, new Date(now), new Date(now + this.ctx.settings.retryWindowMs));
    await this.queue(id, new Date(now));
    return reopened!;
  }

  /** Deletes the deliveries older than the retention; answers how many. */
  async sweep(): Promise<number> {
    const cutoff = new Date(this.ctx.clock.now() - this.ctx.settings.retentionDays * 86_400_000);
    let total = 0;
    for (;;) {
      const deleted = await q.deleteDeliveriesBefore(this.ctx.db, cutoff, 500);
      total += deleted;
      if (deleted < 500) return total;
    }
  }

  private queue(id: string, at: Date): Promise<void> {
    return this.ctx.jobs.send(
      WEBHOOKS_QUEUE,
      { delivery: id } satisfies DeliveryJob,
      at.getTime() > this.ctx.clock.now() ? { startAfter: at } : {},
    );
  }
}
