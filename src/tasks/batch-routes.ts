/** /v1/batches: one endpoint called with many inputs, each a task (tasks/batches.ts), and its results as JSON Lines. */
import { Elysia, t } from "elysia";
import { ErrorBody } from "../accounts/model.ts";
import { authenticated, type AuthDeps } from "../http/auth.ts";
import { secured } from "../http/openapi.ts";
import { listBody } from "../paging.ts";
import { BATCH_INPUTS_MAX, BatchCreateBody, BatchIdParams, BatchListBody, BatchListQuery, BatchView } from "./batch-model.ts";
import type { BatchRow } from "./batch-queries.ts";
import { batchViews } from "./batch-view.ts";
import { batchResults, cancelBatch, createBatch, getBatch, listBatches } from "./batches.ts";
import { idempotencyKeyOf } from "./routes.ts";
import type { TasksContext } from "./service.ts";

const tags = ["Tasks"];

export function batchRoutes(auth: AuthDeps, ctx: TasksContext) {
  const viewOf = async (batch: BatchRow) => (await batchViews(ctx.db, [batch]))[0]!;
  return new Elysia({ prefix: "/v1" })
    .use(authenticated(auth))
    .post(
      "/batches",
      async ({ caller, body, request, set }) => {
        const { batch, created } = await createBatch(ctx, caller, body, idempotencyKeyOf(request));
        set.status = created ? 202 : 200;
        return viewOf(batch);
      },
      {
        body: BatchCreateBody,
        response: { 200: BatchView, 202: BatchView, 404: ErrorBody, 409: ErrorBody, 429: ErrorBody },
        detail: secured({
          tags,
          summary: `Call one endpoint with up to ${BATCH_INPUTS_MAX} inputs, each run as a task, paced by the plan's limit`,
          description: `Takes \`{"endpoint": "<stub>", "inputs": [{…}, …]}\` or \`{"published": "<public_stub>", "inputs": [{…}, …]}\` (1 to ${BATCH_INPUTS_MAX} inputs), with an optional \`metadata\` object echoed back. Every input is checked as the endpoint's route checks a body, before anything is queued: all the bad ones in one 422, each at \`["body", "inputs", i, …]\`. Then each input is queued as a task: 202 with the batch and its counts. The batch is paced by the plan's limit rather than refused: each task takes one of the account's calls a minute when it starts (a Free account's batch of 100 runs at 10 a minute). Its inputs count towards the account's bound of waiting tasks (a 429 past it). Read it with \`GET /v1/batches/{batch_id}\`, and its results, in input order, with \`GET /v1/batches/{batch_id}/results\`. With an \`Idempotency-Key\` header a retried create answers 200 with the first batch; the same key with another body is a 409. Each task is billed once, when it succeeds, as its synchronous call is.`,
        }),
      },
    )
    .get(
      "/batches",
      async ({ caller, query }) => {
        const page = await listBatches(ctx, caller.accountId, query);
        const views = await batchViews(ctx.db, page.items);
        return listBody({ items: views, nextCursor: page.nextCursor }, (view) => view);
      },
      {
        query: BatchListQuery,
        response: { 200: BatchListBody },
        detail: secured({ tags, summary: "The account's batches, newest first, a page at a time" }),
      },
    )
    .get("/batches/:batch_id", async ({ caller, params }) => viewOf(await getBatch(ctx, caller.accountId, params.batch_id)), {
      params: BatchIdParams,
      response: { 200: BatchView, 404: ErrorBody },
      detail: secured({ tags, summary: "A batch: its status and its tasks' counts by status" }),
    })
    .get(
      "/batches/:batch_id/results",
      async ({ caller, params, request, server }) => {
        const batch = await getBatch(ctx, caller.accountId, params.batch_id);
        server?.timeout(request, 0);
        return jsonLines(batchResults(ctx, batch));
      },
      {
        params: BatchIdParams,
        response: {
          200: t.String({
            description:
              'JSON Lines (`application/jsonl`), one line per input in input order: `{"index", "task_id", "status", "result", "error"}`. `result` is exactly what the endpoint\'s route answers (`{response, context, info}`) once the task succeeded; `error` is `{code, message}` once it failed; both are null while it is queued or running, and when it was canceled.',
          }),
          404: ErrorBody,
        },
        detail: secured({ tags, summary: "A batch's results as JSON Lines, one line per input in input order" }),
      },
    )
    .post("/batches/:batch_id/cancel", async ({ caller, params }) => viewOf(await cancelBatch(ctx, caller.accountId, params.batch_id)), {
      params: BatchIdParams,
      response: { 200: BatchView, 404: ErrorBody, 409: ErrorBody },
      detail: secured({
        tags,
        summary:
          "Cancel a running batch: its queued tasks never run and cost nothing, its running ones stop, finished ones keep their results",
      }),
    });
}

/** Lines written as they are read: a reader that goes away stops the reading. */
function jsonLines(lines: AsyncGenerator<unknown>): Response {
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(`${JSON.stringify(next.value)}\n`));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
  return new Response(stream, { headers: { "content-type": "application/jsonl; charset=utf-8", "cache-control": "no-store" } });
}
