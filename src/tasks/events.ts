/**
 * A task's events, as its stream sends them: kept in the database in order
 * (task_events), so a reader on any instance, and a reader that comes back
 * with Last-Event-ID, reads the same stream. A reader on the instance that
 * writes an event hears of it at once; elsewhere, at its next look
 * (POLL_MS): the instances of a fleet share no bus here.
 */
import type { Database } from "../../db/client.ts";
import { isUniqueViolation } from "../../db/client.ts";
import { appendEvent, appendEventToEach, eventsAfter, type TaskEventRow } from "./queries.ts";
import type { TaskStatus } from "./model.ts";

/** How often a reader looks for events written on another instance. */
export const POLL_MS = 500;

/** An event's JSON as the stream sends it: `{type, ...}`. */
export type TaskEvent =
  | { type: "status"; status: TaskStatus; attempt?: number; error?: { code: string; message: string } }
  | { type: "context"; content: unknown }
  | { type: "response"; content: unknown }
  /** A monitor's run compared with the answer before it (tasks/monitors.ts), written before its final status. */
  | { type: "monitor"; compared: boolean; changed: boolean; changes: unknown };

export class TaskEvents {
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(private readonly db: Database) {}

  /** Writes the event after the task's last and wakes this instance's readers of the task; answers its number. */
  async append(taskId: string, event: TaskEvent): Promise<number> {
    const seq = await appendEvent(this.db, taskId, event.type, JSON.stringify(event));
    const waiting = this.waiters.get(taskId);
    if (waiting) for (const wake of waiting) wake();
    return seq;
  }

  /**
   * Writes the event after each task's last, in one statement; should one of them gain an event meanwhile (its run
   * wrote one), each is written on its own.
   */
  async appendToEach(taskIds: string[], event: TaskEvent): Promise<void> {
    try {
      await appendEventToEach(this.db, taskIds, event.type, JSON.stringify(event));
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      for (const id of taskIds) await appendEvent(this.db, id, event.type, JSON.stringify(event));
    }
    for (const id of taskIds) {
      const waiting = this.waiters.get(id);
      if (waiting) for (const wake of waiting) wake();
    }
  }

  after(taskId: string, seq: number, limit = 100): Promise<TaskEventRow[]> {
    return eventsAfter(this.db, taskId, seq, limit);
  }

  /** Resolves when an event of the task is written here, after `ms`, or when `signal` aborts, whichever is first. */
  wait(taskId: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let waiting = this.waiters.get(taskId);
      if (!waiting) this.waiters.set(taskId, (waiting = new Set()));
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        waiting.delete(done);
        if (waiting.size === 0 && this.waiters.get(taskId) === waiting) this.waiters.delete(taskId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
      waiting.add(done);
    });
  }
}

/** Whether an event (as stored) ends the stream: a status that is final. */
export function isFinalEvent(row: Pick<TaskEventRow, "type" | "data">): boolean {
  if (row.type !== "status") return false;
  const status = (JSON.parse(row.data) as { status?: string }).status;
  return status === "succeeded" || status === "failed" || status === "canceled";
}
