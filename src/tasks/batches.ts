/**
 * The batches' verbs, free of HTTP: create (every input checked, the queued
 * bound counting them all, its tasks inserted, evented and queued in bulk,
 * idempotent), read, list, cancel, and its results in input order. Every
 * read is scoped to its account: another account's batch is a 404 like one
 * that does not exist. Its tasks are ordinary tasks (tasks/run.ts runs
 * them), paced by the plan's limit (batch-pacing.ts) and ending the batch
 * when the last ends (batch-end.ts).
 */
import type { Database } from "../../db/client.ts";
import type { Caller } from "../caller.ts";
import { notFound, ServiceError } from "../errors.ts";
import { looksLikeId, newId } from "../ids.ts";
import { DEFAULT_PAGE, pageCursor, pageOf } from "../paging.ts";
import { planFor } from "../limits/plans.ts";
import type { BatchCreate } from "./batch-model.ts";
import * as bq from "./batch-queries.ts";
import { checkBatchBody } from "./batch-request.ts";
import type { TaskEvent } from "./events.ts";
import * as q from "./queries.ts";
import { digestOf, type TasksContext } from "./service.ts";

/** Tasks read at a time while a batch's results are written. */
const RESULTS_PAGE = 200;

/**
 * A new batch, its tasks queued; or, for an Idempotency-Key the account used before with the same body, that first
 * batch (`created` false). The same key with another body is a 409.
 */
export async function createBatch(
  ctx: TasksContext,
  caller: Caller,
  body: BatchCreate,
  idempotencyKey: string | null,
): Promise<{ batch: bq.BatchRow; created: boolean }> {
  const digest = idempotencyKey === null ? null : await digestOf(body);
  if (idempotencyKey !== null) {
    const earlier = await bq.findBatchByIdempotencyKey(ctx.db, caller.accountId, idempotencyKey);
    if (earlier) return { batch: sameRequest(earlier, digest!), created: false };
  }
  const work = await checkBatchBody(ctx, caller.accountId, body);
  const queued = await q.countQueued(ctx.db, caller.accountId);
  if (queued + work.requests.length > ctx.queuedMax)
    throw new ServiceError(
      "rate_limited",
      `this account has ${queued} tasks waiting to run and may have at most ${ctx.queuedMax}: a batch of ${work.requests.length} does not fit; wait for some to start, cancel some, or send fewer inputs`,
      { retryAfterSeconds: 30 },
    );
  const now = ctx.clock.now();
  // The batch, its tasks and their first events at once: a batch is never seen without its tasks.
  const inserted = await ctx.db.transaction(async (tx) => {
    const db = tx as unknown as Database;
    const batch = await bq.insertBatch(db, {
      id: newId("batch", now),
      accountId: caller.accountId,
      keyId: caller.keyId,
      status: "running",
      kind: work.kind,
      target: work.target,
      total: work.requests.length,
      webhookUrl: work.webhookUrl,
      metadata: work.metadata,
      idempotencyKey,
      requestDigest: digest,
      createdAt: new Date(now),
    });
    if (!batch) return null;
    const tasks = await q.insertTasks(
      db,
      work.requests.map((request, index) => ({
        id: newId("task", now),
        accountId: caller.accountId,
        keyId: caller.keyId,
        status: "queued" as const,
        kind: work.kind,
        target: work.target,
        request,
        metadata: null,
        webhookUrl: null,
        batchId: batch.id,
        batchIndex: index,
        createdAt: new Date(now),
      })),
    );
    const ids = tasks.map((task) => task.id);
    await q.appendEventToEach(db, ids, "status", JSON.stringify({ type: "status", status: "queued" } satisfies TaskEvent));
    return { batch, ids };
  });
  if (!inserted) {
    // Another request with the same key got there first: its batch is the answer.
    const earlier = await bq.findBatchByIdempotencyKey(ctx.db, caller.accountId, idempotencyKey!);
    return { batch: sameRequest(earlier!, digest!), created: false };
  }
  const { batch, ids } = inserted;
  try {
    // After the transaction: on the embedded database the queue shares its one connection.
    await ctx.queue.enqueueMany(ids, { id: caller.accountId, plan: planFor(caller).name });
  } catch (error) {
    // Not (all) queued, so not all run: the batch is canceled rather than left waiting for tasks that never come.
    const at = new Date(ctx.clock.now());
    await bq.markCanceled(ctx.db, caller.accountId, batch.id, at).catch(() => {});
    await bq.cancelBatchTasks(ctx.db, caller.accountId, batch.id, at).catch(() => {});
    ctx.log.error("a batch could not be queued", { batch_id: batch.id, error });
    throw new ServiceError("service_unavailable", "the batch could not be queued; try again shortly", { retryAfterSeconds: 5 });
  }
  return { batch, created: true };
}

function sameRequest(earlier: bq.BatchRow, digest: string): bq.BatchRow {
  if (earlier.requestDigest !== digest)
    throw new ServiceError("conflict", "this Idempotency-Key was used for a batch with another body: use a new key for a new batch");
  return earlier;
}

export async function getBatch(ctx: Pick<TasksContext, "db">, accountId: string, id: string): Promise<bq.BatchRow> {
  const batch = looksLikeId("batch", id) ? await bq.findBatch(ctx.db, accountId, id) : null;
  if (!batch) throw notFound("batch");
  return batch;
}

export async function listBatches(
  ctx: Pick<TasksContext, "db">,
  accountId: string,
  query: { limit?: number; cursor?: string },
): Promise<{ items: bq.BatchRow[]; nextCursor: string | null }> {
  const limit = query.limit ?? DEFAULT_PAGE;
  return pageOf(await bq.listBatches(ctx.db, accountId, { before: pageCursor("batch", query.cursor), limit }), limit);
}

/**
 * Cancels a running batch: its queued tasks never run (and cost nothing), its running ones stop; those that finished
 * keep their results. A completed or canceled batch is a 409.
 */
export async function cancelBatch(ctx: TasksContext, accountId: string, id: string): Promise<bq.BatchRow> {
  const batch = await getBatch(ctx, accountId, id);
  const at = new Date(ctx.clock.now());
  // The batch first: a task that ends meanwhile finds it no longer running, and does not complete it.
  const canceled = await bq.markCanceled(ctx.db, accountId, batch.id, at);
  if (!canceled) {
    const now = await getBatch(ctx, accountId, id);
    throw new ServiceError("conflict", `the batch has already ${now.status === "canceled" ? "been canceled" : "completed"}`);
  }
  const ids = await bq.cancelBatchTasks(ctx.db, accountId, batch.id, at);
  await ctx.events.appendToEach(ids, { type: "status", status: "canceled" });
  return canceled;
}

/** One line of a batch's results: its input's index, its task, and the task's result or error (null while unfinished). */
export interface BatchResultLine {
  index: number;
  task_id: string;
  status: q.TaskRow["status"];
  result: unknown;
  error: { code: string; message: string } | null;
}

/** The batch's results in input order, a page of tasks at a time (a batch of 1,000 results is never held at once). */
export async function* batchResults(ctx: Pick<TasksContext, "db">, batch: bq.BatchRow): AsyncGenerator<BatchResultLine> {
  let after = -1;
  for (;;) {
    const page = await bq.batchTasksAfter(ctx.db, batch.id, after, RESULTS_PAGE);
    for (const task of page)
      yield {
        index: task.batchIndex!,
        task_id: task.id,
        status: task.status,
        result: task.status === "succeeded" && task.result !== null ? JSON.parse(task.result) : null,
        error: task.status === "failed" && task.errorCode !== null ? { code: task.errorCode, message: task.errorMessage ?? "" } : null,
      };
    if (page.length < RESULTS_PAGE) return;
    after = page.at(-1)!.batchIndex!;
  }
}
