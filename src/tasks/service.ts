/**
 * The tasks' verbs, free of HTTP: create (checked, bounded, idempotent,
 * queued), read, list, cancel, and the sweep of finished tasks past their
 * retention. Every read is scoped to its account: another account's task
 * is a 404 like one that does not exist.
 */
import type { Database } from "../../db/client.ts";
import { getAccount } from "../accounts/queries.ts";
import type { Caller } from "../caller.ts";
import type { Clock } from "../clock.ts";
import type { EndpointsContext } from "../endpoints/service.ts";
import { notFound, ServiceError } from "../errors.ts";
import { looksLikeId, newId } from "../ids.ts";
import { DEFAULT_PAGE, pageCursor, pageOf } from "../paging.ts";
import { planFor } from "../limits/plans.ts";
import type { Logger } from "../log.ts";
import type { RunDeps } from "../research/run/hold.ts";
import type { TaskEvents } from "./events.ts";
import type { TaskCreate, TaskStatus } from "./model.ts";
import * as q from "./queries.ts";
import type { TaskQueue } from "./queue.ts";
import { notifyEnd } from "./notify.ts";
import { taskEnded } from "./batch-end.ts";
import { deleteFinishedBatchesBefore } from "./batch-queries.ts";
import { checkTaskBody, type TaskWork } from "./request.ts";
import type { WebhookSink } from "../webhooks/emit.ts";
import type { WebhookUrlPolicy } from "../webhooks/url.ts";

export interface TasksContext {
  db: Database;
  clock: Clock;
  log: Logger;
  runs: RunDeps;
  endpoints: EndpointsContext;
  queue: TaskQueue;
  events: TaskEvents;
  queuedMax: number;
  retentionDays: number;
  /** Where a task's end is told, when it has a webhook. */
  webhooks: WebhookSink;
  /** What a webhook URL is judged by: the page reads' egress policy. */
  egress: WebhookUrlPolicy;
}

/** The most characters of an Idempotency-Key. */
export const IDEMPOTENCY_KEY_MAX = 255;

/**
 * A new task, queued; or, for an Idempotency-Key the account used before with the same body, that first task
 * (`created` false). The same key with another body is a 409.
 */
export async function createTask(
  ctx: TasksContext,
  caller: Caller,
  body: TaskCreate,
  idempotencyKey: string | null,
): Promise<{ task: q.TaskRow; created: boolean }> {
  const digest = idempotencyKey === null ? null : await digestOf(body);
  if (idempotencyKey !== null) {
    const earlier = await q.findByIdempotencyKey(ctx.db, caller.accountId, idempotencyKey);
    if (earlier) return { task: sameRequest(earlier, digest!), created: false };
  }
  const work = await checkTaskBody(ctx, caller.accountId, body);
  const task = await queueTask(ctx, caller, { ...work, idempotencyKey, requestDigest: digest });
  if (!task) {
    // Another request with the same key got there first: its task is the answer.
    const earlier = await q.findByIdempotencyKey(ctx.db, caller.accountId, idempotencyKey!);
    return { task: sameRequest(earlier!, digest!), created: false };
  }
  return { task, created: true };
}

/**
 * A task of checked work, stored and queued, within the account's bound on waiting tasks (a 429 past it). Null when
 * its Idempotency-Key is taken. A monitor's run is queued here too, its body checked when the monitor was made.
 */
export async function queueTask(
  ctx: TasksContext,
  caller: Pick<Caller, "accountId" | "keyId" | "balanceMicros" | "customRateLimit">,
  work: TaskWork & { idempotencyKey?: string | null; requestDigest?: string | null; monitorId?: string | null },
): Promise<q.TaskRow | null> {
  const queued = await q.countQueued(ctx.db, caller.accountId);
  if (queued >= ctx.queuedMax)
    throw new ServiceError(
      "rate_limited",
      `this account has ${queued} tasks waiting to run, the most it may have: wait for some to start, or cancel some, before creating more`,
      { retryAfterSeconds: 30 },
    );
  const id = newId("task", ctx.clock.now());
  const task = await q.insertTask(ctx.db, {
    id,
    accountId: caller.accountId,
    keyId: caller.keyId,
    status: "queued",
    ...work,
    createdAt: new Date(ctx.clock.now()),
  });
  if (!task) return null;
  await ctx.events.append(task.id, { type: "status", status: "queued" });
  try {
    await ctx.queue.enqueue(task.id, { id: caller.accountId, plan: planFor(caller).name });
  } catch (error) {
    // Not queued, so never run: the task is removed rather than left waiting for nothing.
    await q.cancelTask(ctx.db, caller.accountId, task.id, new Date(ctx.clock.now())).catch(() => {});
    ctx.log.error("a task could not be queued", { task_id: task.id, error });
    throw new ServiceError("service_unavailable", "the task could not be queued; try again shortly", { retryAfterSeconds: 5 });
  }
  return task;
}

function sameRequest(earlier: q.TaskRow, digest: string): q.TaskRow {
  if (earlier.requestDigest !== digest)
    throw new ServiceError("conflict", "this Idempotency-Key was used for a task with another body: use a new key for a new task");
  return earlier;
}

/** The body's digest, kept with an Idempotency-Key: a retry must send the same body. */
export async function digestOf(body: unknown): Promise<string> {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(body)));
  return Buffer.from(bytes).toString("hex");
}

export async function getTask(ctx: Pick<TasksContext, "db">, accountId: string, id: string): Promise<q.TaskRow> {
  const task = looksLikeId("task", id) ? await q.findTask(ctx.db, accountId, id) : null;
  if (!task) throw notFound("task");
  return task;
}

export async function listTasks(
  ctx: Pick<TasksContext, "db">,
  accountId: string,
  query: { status?: TaskStatus; limit?: number; cursor?: string },
): Promise<{ items: q.TaskRow[]; nextCursor: string | null }> {
  const limit = query.limit ?? DEFAULT_PAGE;
  const rows = await q.listTasks(ctx.db, accountId, { status: query.status, before: pageCursor("task", query.cursor), limit });
  return pageOf(rows, limit);
}

/**
 * Cancels a task that has not finished: a queued one never runs (and costs nothing); a running one stops within a
 * second wherever it runs, and is not billed. A finished task is a 409.
 */
export async function cancelTask(ctx: TasksContext, accountId: string, id: string): Promise<q.TaskRow> {
  const task = await getTask(ctx, accountId, id);
  const canceled = await q.cancelTask(ctx.db, accountId, task.id, new Date(ctx.clock.now()));
  if (!canceled) {
    const now = await getTask(ctx, accountId, id);
    throw new ServiceError("conflict", `the task has already ${now.status === "canceled" ? "been canceled" : now.status}`);
  }
  await ctx.events.append(task.id, { type: "status", status: "canceled" });
  await notifyEnd(ctx, canceled);
  await taskEnded(ctx, canceled);
  return canceled;
}

/** Queues a task's job again, to run after `seconds`, at its account's plan now. */
export async function queueAgain(ctx: Pick<TasksContext, "db" | "queue">, task: q.TaskRow, seconds: number): Promise<void> {
  const account = await getAccount(ctx.db, task.accountId);
  await ctx.queue.enqueue(
    task.id,
    { id: task.accountId, plan: planFor(account ?? { balanceMicros: 0, customRateLimit: null }).name },
    seconds,
  );
}

/** The task whose job will not be tried again (its instance died running it, each time): failed, with words that say so. */
export async function abandonTask(ctx: Pick<TasksContext, "db" | "clock" | "events" | "webhooks" | "log">, id: string): Promise<void> {
  const error = { code: "internal_error", message: "the task could not be run: the instances running it stopped before it finished" };
  const done = await q.finishTask(
    ctx.db,
    id,
    { status: "failed", errorCode: error.code, errorMessage: error.message },
    new Date(ctx.clock.now()),
  );
  if (!done) return;
  await ctx.events.append(id, { type: "status", status: "failed", error });
  await notifyEnd(ctx, done);
  await taskEnded(ctx, done);
}

/**
 * Deletes the tasks, and the batches, that finished more than the retention ago (500 at a time); answers how many
 * tasks and batches. A batch's tasks go with it.
 */
export async function sweepTasks(ctx: Pick<TasksContext, "db" | "clock" | "retentionDays">): Promise<number> {
  const cutoff = new Date(ctx.clock.now() - ctx.retentionDays * 86_400_000);
  let total = 0;
  for (const sweep of [q.deleteFinishedBefore, deleteFinishedBatchesBefore])
    for (;;) {
      const deleted = await sweep(ctx.db, cutoff, 500);
      total += deleted;
      if (deleted < 500) break;
    }
  return total;
}
