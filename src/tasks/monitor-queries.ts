/** The monitors table, and its runs' tasks: every query scoped to its account where a caller reaches it. */
import { and, asc, desc, eq, inArray, lt, lte } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { monitors, taskEvents, tasks } from "../../db/schema.ts";
import type { TaskRow } from "./queries.ts";

export type MonitorRow = typeof monitors.$inferSelect;
export type NewMonitor = typeof monitors.$inferInsert;

/** At most this many monitors are claimed by one look of one instance's scheduler. */
export const CLAIM_BATCH = 50;

export async function insertMonitor(db: Database, row: NewMonitor): Promise<MonitorRow> {
  const [inserted] = await db.insert(monitors).values(row).returning();
  return inserted!;
}

export async function findMonitor(db: Database, accountId: string, id: string): Promise<MonitorRow | null> {
  const [row] = await db
    .select()
    .from(monitors)
    .where(and(eq(monitors.accountId, accountId), eq(monitors.id, id)));
  return row ?? null;
}

/** Newest first; `before` is the id the page starts after. One more than `limit` says whether more follow. */
export async function listMonitors(db: Database, accountId: string, options: { before?: string; limit: number }): Promise<MonitorRow[]> {
  return db
    .select()
    .from(monitors)
    .where(and(eq(monitors.accountId, accountId), options.before ? lt(monitors.id, options.before) : undefined))
    .orderBy(desc(monitors.id))
    .limit(options.limit + 1);
}

export async function updateMonitor(
  db: Database,
  accountId: string,
  id: string,
  changes: Partial<Pick<NewMonitor, "schedule" | "webhookUrl" | "status" | "metadata" | "nextRunAt" | "updatedAt">>,
): Promise<MonitorRow | null> {
  const [row] = await db
    .update(monitors)
    .set(changes)
    .where(and(eq(monitors.accountId, accountId), eq(monitors.id, id)))
    .returning();
  return row ?? null;
}

export async function deleteMonitor(db: Database, accountId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(monitors)
    .where(and(eq(monitors.accountId, accountId), eq(monitors.id, id)))
    .returning({ id: monitors.id });
  return rows.length > 0;
}

/**
 * Claims the active monitors due by `now`, at most CLAIM_BATCH, and moves each one's next run on (`next` says
 * when) in the same transaction: instances looking at once skip the rows another holds (SKIP LOCKED), so each due
 * run is started by one instance.
 */
export async function claimDueMonitors(db: Database, now: Date, next: (monitor: MonitorRow) => Date): Promise<MonitorRow[]> {
  return db.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(monitors)
      .where(and(eq(monitors.status, "active"), lte(monitors.nextRunAt, now)))
      .orderBy(asc(monitors.nextRunAt))
      .limit(CLAIM_BATCH)
      .for("update", { skipLocked: true });
    const claimed: MonitorRow[] = [];
    for (const monitor of due) {
      const [row] = await tx
        .update(monitors)
        .set({ nextRunAt: next(monitor) })
        .where(eq(monitors.id, monitor.id))
        .returning();
      if (row) claimed.push(row);
    }
    return claimed;
  });
}

/** Whether the monitor has a run that has not finished (queued or running): the next waits for it. */
export async function hasUnfinishedRun(db: Database, monitorId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: tasks.id })
    .from(tasks)
    .where(and(eq(tasks.monitorId, monitorId), inArray(tasks.status, ["queued", "running"])))
    .limit(1);
  return row !== undefined;
}

/** For a worker: the monitor of a run, whatever its account. */
export async function monitorById(db: Database, id: string): Promise<MonitorRow | null> {
  const [row] = await db.select().from(monitors).where(eq(monitors.id, id));
  return row ?? null;
}

/** The run's answer becomes the one the next is compared with. */
export async function recordAnswer(db: Database, id: string, taskId: string, result: string): Promise<void> {
  await db.update(monitors).set({ lastTaskId: taskId, lastResult: result }).where(eq(monitors.id, id));
}

/** The monitor's runs, newest first, a page at a time (one more than `limit`). */
export async function listRuns(
  db: Database,
  accountId: string,
  monitorId: string,
  options: { before?: string; limit: number },
): Promise<TaskRow[]> {
  return db
    .select()
    .from(tasks)
    .where(and(eq(tasks.accountId, accountId), eq(tasks.monitorId, monitorId), options.before ? lt(tasks.id, options.before) : undefined))
    .orderBy(desc(tasks.id))
    .limit(options.limit + 1);
}

/** The `monitor` events of these tasks (a run's comparison), by task id. */
export async function comparisonsOf(db: Database, taskIds: string[]): Promise<Map<string, string>> {
  if (taskIds.length === 0) return new Map();
  const rows = await db
    .select({ taskId: taskEvents.taskId, data: taskEvents.data })
    .from(taskEvents)
    .where(and(inArray(taskEvents.taskId, taskIds), eq(taskEvents.type, "monitor")))
    .orderBy(asc(taskEvents.seq));
  return new Map(rows.map((row) => [row.taskId, row.data]));
}
