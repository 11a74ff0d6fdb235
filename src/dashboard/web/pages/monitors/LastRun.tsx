/** A monitor's last answered run: when it was made, linking to its task; or that there is none yet. */
import { formatTime } from "../../format.ts";
import type { Monitor } from "../../model.ts";
import { Link } from "../../router.tsx";
import { taskHref } from "../tasks/task-facts.ts";
import { timeOfId } from "./monitor-facts.ts";

export function LastRun({ monitor }: { monitor: Pick<Monitor, "last_run"> }) {
  if (!monitor.last_run) return <>None yet</>;
  const id = monitor.last_run.task_id;
  return (
    <Link href={taskHref(id)} aria-label={`Last answer: task ${id}`}>
      {formatTime(timeOfId(id), id)}
    </Link>
  );
}
