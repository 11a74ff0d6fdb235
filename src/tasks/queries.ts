/** The tasks table and its events: every query scoped to its account where a caller reaches it. */
import { and, asc, desc, eq, gt, inArray, isNotNull, isNull, lt, sql } from "drizzle-orm";
import { type Database, isUniqueViolation } from "../../db/client.ts";
import { taskEvents, tasks } from "../../db/schema.ts";
import type { TaskStatus } from "./model.ts";

export type TaskRow = typeof tasks.$inferSelect;
export type NewTask = typeof tasks.$inferInsert;
export type TaskEventRow = typeof taskEvents.$inferSelect;

/** The new task, or null when the account already has one under its Idempotency-Key (another request won the race). */
export async function insertTask(db: Database, row: NewTask): Promise<TaskRow | null> {
  try {
    const [inserted] = await db.insert(tasks).values(row).returning();
    return inserted!;
  } catch (error) {
    if (row.idempotencyKey && isUniqueViolation(error)) return null;
    throw error;
  }
}

/** Many new tasks in one statement (a batch's); answers them in the order given. */
export async function insertTasks(db: Database, rows: NewTask[]): Promise<TaskRow[]> {
  if (rows.length === 0) return [];
  const inserted = await db.insert(tasks).values(rows).returning();
  const byId = new Map(inserted.map((row) => [row.id, row]));
  return rows.map((row) => byId.get(row.id!)!);
}

export async function findTask(db: Database, accountId: string, id: string): Promise<TaskRow | null> {
  const [row] = await db
    .select()
    .from(tasks)
    .where(and(eq(tasks.accountId, accountId), eq(tasks.id, id)));
  return row ?? null;
}

/** For a worker: the task whatever its account. */
export async function taskById(db: Database, id: string): Promise<TaskRow | null> {
  const [row] = await db.select().from(tasks).where(eq(tasks.id, id));
  return row ?? null;
}

export async function findByIdempotencyKey(db: Database, accountId: string, key: string): Promise<TaskRow | null> {
  const [row] = await db
    .select()
    .from(tasks)
    .where(and(eq(tasks.accountId, accountId), eq(tasks.idempotencyKey, key)));
  return row ?? null;
}

export async function countQueued(db: Database, accountId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(tasks)
    .where(and(eq(tasks.accountId, accountId), eq(tasks.status, "queued")));
  return row?.n ?? 0;
}

/** Newest first; `before` is the id the page starts after (ids sort by creation time). One more than `limit` says whether more follow. */
export async function listTasks(
  db: Database,
  accountId: string,
  options: { status?: TaskStatus; before?: string; limit: number },
): Promise<TaskRow[]> {
  return db
    .select()
    .from(tasks)
    .where(
      and(
        eq(tasks.accountId, accountId),
        options.status ? eq(tasks.status, options.status) : undefined,
        options.before ? lt(tasks.id, options.before) : undefined,
      ),
    )
    .orderBy(desc(tasks.id))
    .limit(options.limit + 1);
}

/** For the operator (the CLI): the newest tasks of every account, or of one, by status. */
export async function operatorTasks(db: Database, options: { accountId?: string; status?: TaskStatus; limit: number }): Promise<TaskRow[]> {
  return db
    .select()
    .from(tasks)
    .where(
      and(
        options.accountId ? eq(tasks.accountId, options.accountId) : undefined,
        options.status ? eq(tasks.status, options.status) : undefined,
      ),
    )
    .orderBy(desc(tasks.id))
    .limit(options.limit);
}

/**
 * A worker takes the task: running, started now, one more attempt. Null when it is not there to take (canceled,
 * finished, deleted). A task already running was begun by an instance that died: it is taken again.
 */
export async function claimTask(db: Database, id: string, at: Date): Promise<TaskRow | null> {
  const [row] = await db
    .update(tasks)
    .set({ status: "running", startedAt: at, attempts: sql`${tasks.attempts} + 1` })
    .where(and(eq(tasks.id, id), inArray(tasks.status, ["queued", "running"])))
    .returning();
  return row ?? null;
}

/** Back to the queue (a transient refusal: the instance's runs were full): only from running, so a cancel stands. */
export async function requeueTask(db: Database, id: string): Promise<boolean> {
  const rows = await db
    .update(tasks)
    .set({ status: "queued" })
    .where(and(eq(tasks.id, id), eq(tasks.status, "running")))
    .returning({ id: tasks.id });
  return rows.length > 0;
}

export interface TaskEnd {
  status: "succeeded" | "failed";
  result?: string;
  errorCode?: string;
  errorMessage?: string;
}

/** The run's end, only while the task is still running: a task canceled meanwhile stays canceled. */
export async function finishTask(db: Database, id: string, end: TaskEnd, at: Date): Promise<TaskRow | null> {
  const [row] = await db
    .update(tasks)
    .set({
      status: end.status,
      result: end.result ?? null,
      errorCode: end.errorCode ?? null,
      errorMessage: end.errorMessage ?? null,
      finishedAt: at,
    })
    .where(and(eq(tasks.id, id), inArray(tasks.status, ["queued", "running"])))
    .returning();
  return row ?? null;
}

/** Cancels a task that has not finished; null when there is none (or it had finished: `findTask` tells which). */
export async function cancelTask(db: Database, accountId: string, id: string, at: Date): Promise<TaskRow | null> {
  const [row] = await db
    .update(tasks)
    .set({ status: "canceled", finishedAt: at })
    .where(and(eq(tasks.accountId, accountId), eq(tasks.id, id), inArray(tasks.status, ["queued", "running"])))
    .returning();
  return row ?? null;
}

export async function statusOf(db: Database, id: string): Promise<TaskStatus | null> {
  const [row] = await db.select({ status: tasks.status }).from(tasks).where(eq(tasks.id, id));
  return row?.status ?? null;
}

/**
 * Deletes up to `limit` tasks (their events with them) that finished before `cutoff`; answers how many. A batch's
 * tasks go with their batch (its results read them all), not one by one.
 */
export async function deleteFinishedBefore(db: Database, cutoff: Date, limit: number): Promise<number> {
  const doomed = db
    .select({ id: tasks.id })
    .from(tasks)
    .where(and(isNotNull(tasks.finishedAt), lt(tasks.finishedAt, cutoff), isNull(tasks.batchId)))
    .limit(limit);
  const rows = await db.delete(tasks).where(inArray(tasks.id, doomed)).returning({ id: tasks.id });
  return rows.length;
}

/**
 * Appends an event after the task's last: its number is the stream's event id. Two writers at once (a cancel and
 * the run's end) may pick the same number; the loser takes the next.
 */
export async function appendEvent(db: Database, taskId: string, type: string, data: string): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    try {
      const [row] = await db
        .insert(taskEvents)
        .select(
          db
            .select({
              taskId: sql<string>`${taskId}`.as("task_id"),
              seq: sql<number>`coalesce(max(${taskEvents.seq}), 0) + 1`.as("seq"),
              type: sql<string>`${type}`.as("type"),
              data: sql<string>`${data}`.as("data"),
            })
            .from(taskEvents)
            .where(eq(taskEvents.taskId, taskId)),
        )
        .returning({ seq: taskEvents.seq });
      return row!.seq;
    } catch (error) {
      if (attempt < 5 && isUniqueViolation(error)) continue;
      throw error;
    }
  }
}

/** The same event appended after each task's last, in one statement (a batch's tasks queued, or canceled). */
export async function appendEventToEach(db: Database, taskIds: string[], type: string, data: string): Promise<void> {
  if (taskIds.length === 0) return;
  await db.insert(taskEvents).select(
    db
      .select({
        taskId: sql<string>`${tasks.id}`.as("task_id"),
        seq: sql<number>`coalesce((select max(e.seq) from task_events e where e.task_id = ${tasks.id}), 0) + 1`.as("seq"),
        type: sql<string>`${type}`.as("type"),
        data: sql<string>`${data}`.as("data"),
      })
      .from(tasks)
      .where(inArray(tasks.id, taskIds)),
  );
}

export async function eventsAfter(db: Database, taskId: string, after: number, limit: number): Promise<TaskEventRow[]> {
  return db
    .select()
    .from(taskEvents)
    .where(and(eq(taskEvents.taskId, taskId), gt(taskEvents.seq, after)))
    .orderBy(asc(taskEvents.seq))
    .limit(limit);
}
