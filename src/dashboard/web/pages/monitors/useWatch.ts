/**
 * A monitor's page keeps up with its runs while something is happening: a
 * run queued or running, the next one due within a minute, a run just succeeded whose
 * comparison (written a moment after its status) is not in yet, or the
 * monitor not yet naming it as its last answer. Only what is awaited is
 * read again, every few seconds (the reads count against the session's
 * allowance); when a new run appears, the monitor is read once (its next
 * run has moved on).
 */
import { useEffect, useRef } from "preact/hooks";
import type { CursorList } from "../../components/useCursorList.ts";
import type { Monitor, MonitorRun } from "../../model.ts";
import { isFinal } from "../tasks/task-facts.ts";

const WATCH_MS = 3_000;
/** Half a minute: long past the moment a run's comparison takes. */
const SETTLE_MS = 30_000;
/** A run is awaited when it is due within this long... */
const DUE_SOON_MS = 60_000;
/** ...and no longer once it is this late (no instance is looking for due monitors). */
const OVERDUE_MS = 5 * 60_000;

export interface Watch {
  runs: boolean;
  monitor: boolean;
}

/** What to read again; `paged` runs (Load more pressed) are not re-read, which would drop the pages after the first. */
export function watchOf(monitor: Monitor, runs: MonitorRun[] | null, paged: boolean, now = Date.now()): Watch {
  if (runs === null || paged) return { runs: false, monitor: false };
  const newest = runs.find((run) => run.status === "succeeded");
  const recent = newest?.finished_at ? now - Date.parse(newest.finished_at) <= SETTLE_MS : false;
  const uncompared = recent && newest!.monitor === null;
  const unnamed = recent && newest!.monitor !== null && monitor.last_run?.task_id !== newest!.id;
  const due = Date.parse(monitor.next_run_at) - now;
  const dueSoon = monitor.status === "active" && due < DUE_SOON_MS && due > -OVERDUE_MS;
  return { runs: runs.some((run) => !isFinal(run)) || uncompared || dueSoon, monitor: unnamed };
}

export function useWatch(monitor: Monitor | null, runs: CursorList<MonitorRun>, reloadMonitor: () => void): void {
  const watch = monitor ? watchOf(monitor, runs.items, (runs.items?.length ?? 0) > 20) : { runs: false, monitor: false };
  const latest = useRef({ watch, runs, reloadMonitor });
  latest.current = { watch, runs, reloadMonitor };
  const active = watch.runs || watch.monitor;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => {
      const now = latest.current;
      if (now.watch.runs) now.runs.reload();
      if (now.watch.monitor) now.reloadMonitor();
    }, WATCH_MS);
    return () => clearInterval(timer);
  }, [active]);

  // undefined: the runs are not read yet; null: there are none.
  const newestId = runs.items === null ? undefined : (runs.items[0]?.id ?? null);
  const seen = useRef<string | null | undefined>(undefined);
  useEffect(() => {
    if (seen.current !== undefined && newestId !== undefined && newestId !== seen.current) latest.current.reloadMonitor();
    if (newestId !== undefined) seen.current = newestId;
  }, [newestId]);
}
