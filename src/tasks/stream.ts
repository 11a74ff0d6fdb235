/**
 * GET /v1/tasks/{task_id}/events: the task's events as server-sent events, from
 * the start or after the Last-Event-ID the reader comes back with, each
 * with its number as `id:` and its JSON as `data:`; the stream ends after a
 * final status. A task that ended without its final event written (its
 * instance died between the two) gets one made from the task itself, once
 * FINAL_EVENT_GRACE_MS has passed without it.
 */
import { eventStreamResponse } from "../http/event-stream.ts";
import { isFinalEvent, POLL_MS, type TaskEvents } from "./events.ts";
import { FINAL_STATUSES, type TaskStatus } from "./model.ts";
import { statusOf, type TaskRow } from "./queries.ts";
import type { Database } from "../../db/client.ts";

/**
 * How long a reader that finds its task ended waits for the final event before making one. A run writes the task's
 * end, then (after a monitor's comparison) its final event: a reader between the two would otherwise end the stream
 * with an event that has no id, and a dead instance's event never comes.
 */
export const FINAL_EVENT_GRACE_MS = 3000;

/** The number a Last-Event-ID header names, 0 (from the start) when it names none. */
export function lastEventId(header: string | null): number {
  const n = Number(header?.trim());
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

export function taskEventStream(deps: { db: Database; events: TaskEvents }, task: TaskRow, after: number, requestId: string): Response {
  const stop = new AbortController();
  return eventStreamResponse(
    stop,
    async (stream) => {
      let cursor = after;
      let graceEnds: number | undefined;
      for (;;) {
        const rows = await deps.events.after(task.id, cursor);
        for (const row of rows) {
          stream.write(`id: ${row.seq}\nevent: ${row.type}\ndata: ${row.data}\n\n`);
          cursor = row.seq;
          if (isFinalEvent(row)) return;
        }
        if (rows.length > 0) continue;
        const status = await statusOf(deps.db, task.id);
        if (status === null || FINAL_STATUSES.has(status)) {
          // Read again first: the final event may have been written since the look above.
          if ((await deps.events.after(task.id, cursor, 1)).length > 0) continue;
          graceEnds ??= performance.now() + FINAL_EVENT_GRACE_MS;
          if (status === null || performance.now() >= graceEnds) {
            if (status !== null)
              stream.write(`event: status\ndata: ${JSON.stringify({ type: "status", status: status as TaskStatus })}\n\n`);
            return;
          }
        }
        await deps.events.wait(task.id, POLL_MS, stop.signal);
        if (stop.signal.aborted) return;
      }
    },
    { "x-request-id": requestId },
  );
}
