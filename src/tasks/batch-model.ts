/**
 * Batches on the wire: one endpoint (designed or published) called with up
 * to BATCH_INPUTS_MAX inputs, each input a task of its own, and the batch as
 * every read shows it: its counts by status. TypeBox, so validation, the
 * types and the OpenAPI document are one thing.
 */
import type { Static } from "@sinclair/typebox";
import { t } from "elysia";
import { listOf, pageQuery } from "../http/list-model.ts";
import { Nullable, TaskCreateBody, Timestamp } from "./model.ts";

/** The most inputs one batch takes. */
export const BATCH_INPUTS_MAX = 1_000;

export type BatchStatus = "running" | "completed" | "canceled";

/**
 * Exactly one of `endpoint` or `published` (batch-request.ts refuses none or both), the inputs, and a task's
 * optional webhook and metadata. Unknown fields are refused, not ignored, as a task's are: the schema lets them
 * through to that check (Elysia would strip them silently).
 */
export const BatchCreateBody = t.Object(
  {
    endpoint: TaskCreateBody.properties.endpoint,
    published: TaskCreateBody.properties.published,
    inputs: t.Array(
      // Not records: each input's shape is checked, with its index, against the endpoint's declared inputs.
      t.Unknown({ description: "One call's inputs, a JSON object, as the endpoint's own route takes its body." }),
      {
        minItems: 1,
        maxItems: BATCH_INPUTS_MAX,
        description: `The inputs, 1 to ${BATCH_INPUTS_MAX}: each runs as a task of its own, and its result comes back at its index.`,
      },
    ),
    webhook: TaskCreateBody.properties.webhook,
    metadata: TaskCreateBody.properties.metadata,
  },
  { additionalProperties: true },
);
export type BatchCreate = Static<typeof BatchCreateBody>;

const Count = t.Integer({ minimum: 0 });

export const BatchView = t.Object({
  id: t.String({ examples: ["batch_01jd2x4q8m3v5w6y7z8a9b0c1d"] }),
  object: t.Literal("batch"),
  status: t.Union([t.Literal("running"), t.Literal("completed"), t.Literal("canceled")], {
    description: "running until every input's task has finished, then completed; canceled when stopped.",
  }),
  kind: t.Union([t.Literal("endpoint"), t.Literal("published")]),
  endpoint: t.String({ description: "The endpoint's stub (kind endpoint) or public stub (kind published)." }),
  total: t.Integer({ minimum: 1, description: "How many inputs (and tasks) the batch has." }),
  counts: t.Object(
    { queued: Count, running: Count, succeeded: Count, failed: Count, canceled: Count },
    { description: "The batch's tasks by status." },
  ),
  metadata: Nullable(t.Record(t.String(), t.Unknown())),
  webhook: Nullable(t.Object({ url: t.String() })),
  created_at: Timestamp,
  finished_at: Nullable(Timestamp),
});
export type BatchViewBody = Static<typeof BatchView>;

export const BatchListBody = listOf(BatchView);

export const BatchListQuery = t.Object(pageQuery("Batches"));

export const BatchIdParams = t.Object({ batch_id: t.String({ maxLength: 64 }) });
