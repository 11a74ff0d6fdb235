/** A batch as every read shows it: its row and its tasks' counts by status. */
import type { Database } from "../../db/client.ts";
import type { BatchViewBody } from "./batch-model.ts";
import { type BatchCounts, type BatchRow, countsOf } from "./batch-queries.ts";

export function batchView(batch: BatchRow, counts: BatchCounts): BatchViewBody {
  return {
    id: batch.id,
    object: "batch",
    status: batch.status,
    kind: batch.kind,
    endpoint: batch.target,
    total: batch.total,
    counts,
    metadata: batch.metadata === null ? null : (JSON.parse(batch.metadata) as Record<string, unknown>),
    webhook: batch.webhookUrl === null ? null : { url: batch.webhookUrl },
    created_at: batch.createdAt.toISOString(),
    finished_at: batch.finishedAt?.toISOString() ?? null,
  };
}

/** The batches' views, their counts read in one query. */
export async function batchViews(db: Database, rows: BatchRow[]): Promise<BatchViewBody[]> {
  const counts = await countsOf(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => batchView(row, counts.get(row.id)!));
}
