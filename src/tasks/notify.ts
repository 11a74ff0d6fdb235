/**
 * A task's end told to its webhook: task.succeeded, task.failed or
 * task.canceled, with the task as GET /v1/tasks/{task_id} shows it. The
 * message is stored and queued at once (webhooks/service.ts), and delivered
 * however long the receiver takes to accept it; a failure to store it is
 * logged, and the task's end stands.
 */
import type { Logger } from "../log.ts";
import type { WebhookSink } from "../webhooks/emit.ts";
import type { TaskRow } from "./queries.ts";
import { taskView } from "./view.ts";

export async function notifyEnd(deps: { webhooks: WebhookSink; log: Logger }, task: TaskRow): Promise<void> {
  if (!task.webhookUrl || (task.status !== "succeeded" && task.status !== "failed" && task.status !== "canceled")) return;
  try {
    await deps.webhooks.emit({
      accountId: task.accountId,
      url: task.webhookUrl,
      type: `task.${task.status}`,
      data: { task: taskView(task) },
    });
  } catch (error) {
    deps.log.error("a task's webhook could not be queued", { task_id: task.id, error });
  }
}
