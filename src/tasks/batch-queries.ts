/** The batches table, and its tasks read as a batch's: every query scoped to its account where a caller reaches it. */
import { and, asc, desc, eq, gt, inArray, isNotNull, lt, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { batches, tasks } from "../../db/schema.ts";
import type { TaskStatus } from "./model.ts";
import type { TaskRow } from "./queries.ts";

export type BatchRow = typeof batches.$inferSelect;
export type NewBatch = typeof batches.$inferInsert;
export type BatchCounts = Record<TaskStatus, number>;

/**
 * The new batch, or null when the account already has one under its Idempotency-Key (another request won the race).
 * The conflict is passed over, not raised: the insert runs in the transaction that inserts the batch's tasks.
 */
export async function insertBatch(db: Database, row: NewBatch): Promise<BatchRow | null> {
  const [inserted] = await db
    .insert(batches)
    .values(row)
    .onConflictDoNothing({ target: [batches.accountId, batches.idempotencyKey], where: sql`${batches.idempotencyKey} is not null` })
    .returning();
  return inserted ?? null;
}

export async function findBatch(db: Database, accountId: string, id: string): Promise<BatchRow | null> {
  const [row] = await db
    .select()
    .from(batches)
    .where(and(eq(batches.accountId, accountId), eq(batches.id, id)));
  return row ?? null;
}

/** For a worker that finished one of its tasks: the batch whatever its account. */
export async function batchById(db: Database, id: string): Promise<BatchRow | null> {
  const [row] = await db.select().from(batches).where(eq(batches.id, id));
  return row ?? null;
}

export async function findBatchByIdempotencyKey(db: Database, accountId: string, key: string): Promise<BatchRow | null> {
  const [row] = await db
    .select()
    .from(batches)
    .where(and(eq(batches.accountId, accountId), eq(batches.idempotencyKey, key)));
  return row ?? null;
}

/** Newest first; `before` is the id the page starts after. One more than `limit` says whether more follow. */
export async function listBatches(db: Database, accountId: string, options: { before?: string; limit: number }): Promise<BatchRow[]> {
  return db
    .select()
    .from(batches)
    .where(and(eq(batches.accountId, accountId), options.before ? lt(batches.id, options.before) : undefined))
    .orderBy(desc(batches.id))
    .limit(options.limit + 1);
}

/** Each batch's tasks counted by status (every status present, 0 when none). */
export async function countsOf(db: Database, batchIds: string[]): Promise<Map<string, BatchCounts>> {
  const counts = new Map<string, BatchCounts>(batchIds.map((id) => [id, { queued: 0, running: 0, succeeded: 0, failed: 0, canceled: 0 }]));
  if (batchIds.length === 0) return counts;
  const rows = await db
    .select({ batchId: tasks.batchId, status: tasks.status, n: sql<number>`count(*)::int` })
    .from(tasks)
    .where(inArray(tasks.batchId, batchIds))
    .groupBy(tasks.batchId, tasks.status);
  for (const row of rows) counts.get(row.batchId!)![row.status] = row.n;
  return counts;
}

/** A page of the batch's tasks in input order, after the index `after`. */
export async function batchTasksAfter(db: Database, batchId: string, after: number, limit: number): Promise<TaskRow[]> {
  return db
    .select()
    .from(tasks)
    .where(and(eq(tasks.batchId, batchId), gt(tasks.batchIndex, after)))
    .orderBy(asc(tasks.batchIndex))
    .limit(limit);
}

/** How many of the batch's tasks wait before this index: the ones a paced task lets start before it. */
export async function queuedAhead(db: Database, batchId: string, index: number): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(tasks)
    .where(and(eq(tasks.batchId, batchId), eq(tasks.status, "queued"), lt(tasks.batchIndex, index)));
  return row?.n ?? 0;
}

/** Stops a running batch: null when it had completed or been canceled (or is not the account's). */
export async function markCanceled(db: Database, accountId: string, id: string, at: Date): Promise<BatchRow | null> {
  const [row] = await db
    .update(batches)
    .set({ status: "canceled", finishedAt: at })
    .where(and(eq(batches.accountId, accountId), eq(batches.id, id), eq(batches.status, "running")))
    .returning();
  return row ?? null;
}

/** Cancels the batch's tasks that have not finished; answers their ids. */
export async function cancelBatchTasks(db: Database, accountId: string, batchId: string, at: Date): Promise<string[]> {
  const rows = await db
    .update(tasks)
    .set({ status: "canceled", finishedAt: at })
    .where(and(eq(tasks.accountId, accountId), eq(tasks.batchId, batchId), inArray(tasks.status, ["queued", "running"])))
    .returning({ id: tasks.id });
  return rows.map((row) => row.id);
}

/**
 * The batch completed, once: only while it runs and none of its tasks is left to finish. Whichever task's end comes
 * last makes it (two at once: the row's lock lets one through, and the other finds it completed).
 */
export async function markCompleted(db: Database, id: string, at: Date): Promise<BatchRow | null> {
  const [row] = await db
    .update(batches)
    .set({ status: "completed", finishedAt: at })
    .where(
      and(
        eq(batches.id, id),
        eq(batches.status, "running"),
        sql`not exists (select 1 from ${tasks} where ${tasks.batchId} = ${id} and ${tasks.status} in ('queued', 'running'))`,
      ),
    )
    .returning();
  return row ?? null;
}

/** Deletes up to `limit` batches (their tasks with them) that finished before `cutoff`; answers how many. */
export async function deleteFinishedBatchesBefore(db: Database, cutoff: Date, limit: number): Promise<number> {
  const doomed = db
    .select({ id: batches.id })
    .from(batches)
    .where(and(isNotNull(batches.finishedAt), lt(batches.finishedAt, cutoff)))
    .limit(limit);
  const rows = await db.delete(batches).where(inArray(batches.id, doomed)).returning({ id: batches.id });
  return rows.length;
}
