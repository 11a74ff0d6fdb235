/** How a task reads on the dashboard: its address, its kind in words, whether it can still be canceled. */
import { BASE } from "../../router.tsx";
import type { Task } from "../../model.ts";

export function taskHref(id: string): string {
  return `${BASE}/tasks/${encodeURIComponent(id)}`;
}

/** Only a task that has not finished can be canceled (a finished one is a 409). */
export function canCancel(task: Pick<Task, "status">): boolean {
  return task.status === "queued" || task.status === "running";
}

export function isFinal(task: Pick<Task, "status">): boolean {
  return !canCancel(task);
}

export function kindLabel(task: Pick<Task, "kind" | "endpoint">): string {
  if (task.kind === "endpoint") return `Endpoint ${task.endpoint ?? ""}`.trim();
  if (task.kind === "published") return `Published ${task.endpoint ?? ""}`.trim();
  return "Search";
}
