/**
 * A batch completes when the last of its tasks ends, however it ends (run
 * to success or failure, abandoned after its instances died, canceled on
 * its own): whichever end is last marks it completed, once, and its webhook
 * (when it has one) hears batch.completed with the batch as every read
 * shows it.
 */
import type { Database } from "../../db/client.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { WebhookSink } from "../webhooks/emit.ts";
import { markCompleted } from "./batch-queries.ts";
import { batchViews } from "./batch-view.ts";
import type { TaskRow } from "./queries.ts";

export interface BatchEndDeps {
  db: Database;
  clock: Clock;
  log: Logger;
  /** Where a completed batch's webhook message goes; absent, none is sent. */
  webhooks?: WebhookSink;
}

/** After one of a batch's tasks ended: the batch completed if none is left. Nothing for a task of no batch. */
export async function taskEnded(deps: BatchEndDeps, task: Pick<TaskRow, "batchId">): Promise<void> {
  if (task.batchId === null) return;
  const batch = await markCompleted(deps.db, task.batchId, new Date(deps.clock.now()));
  if (!batch?.webhookUrl || !deps.webhooks) return;
  const [view] = await batchViews(deps.db, [batch]);
  try {
    await deps.webhooks.emit({ accountId: batch.accountId, url: batch.webhookUrl, type: "batch.completed", data: { batch: view! } });
  } catch (error) {
    deps.log.error("a completed batch's webhook message could not be stored", { batch_id: batch.id, error });
  }
}
