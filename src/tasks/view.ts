/** A task as every read (and its webhook) shows it. */
import type { TaskViewBody } from "./model.ts";
import type { TaskRow } from "./queries.ts";

export function taskView(task: TaskRow): TaskViewBody {
  return {
    id: task.id,
    object: "task",
    status: task.status,
    kind: task.kind,
    endpoint: task.target,
    metadata: task.metadata === null ? null : (JSON.parse(task.metadata) as Record<string, unknown>),
    webhook: task.webhookUrl === null ? null : { url: task.webhookUrl },
    attempts: task.attempts,
    created_at: task.createdAt.toISOString(),
    started_at: task.startedAt?.toISOString() ?? null,
    finished_at: task.finishedAt?.toISOString() ?? null,
    result: task.status === "succeeded" && task.result !== null ? (JSON.parse(task.result) as TaskViewBody["result"]) : null,
    error: task.status === "failed" && task.errorCode !== null ? { code: task.errorCode, message: task.errorMessage ?? "" } : null,
  };
}
