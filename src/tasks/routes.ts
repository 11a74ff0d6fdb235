/** /v1/tasks: research started now and read later (tasks/service.ts), and each task's event stream. */
import { Elysia, t } from "elysia";
import { ErrorBody } from "../accounts/model.ts";
import { invalid } from "../errors.ts";
import { authenticated, type AuthDeps } from "../http/auth.ts";
import { secured } from "../http/openapi.ts";
import { listBody } from "../paging.ts";
import { requestMeta } from "../http/request-context.ts";
import { TaskCreateBody, TaskIdParams, TaskListBody, TaskListQuery, TaskView } from "./model.ts";
import { cancelTask, createTask, getTask, IDEMPOTENCY_KEY_MAX, listTasks, type TasksContext } from "./service.ts";
import { taskView } from "./view.ts";
import { lastEventId, taskEventStream } from "./stream.ts";

const tags = ["Tasks"];

/** The Idempotency-Key header: printable ASCII, at most IDEMPOTENCY_KEY_MAX characters; null when absent. */
export function idempotencyKeyOf(request: Request): string | null {
  const key = request.headers.get("idempotency-key");
  if (key === null) return null;
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX || !/^[\x21-\x7e]+$/.test(key))
    throw invalid(["header", "Idempotency-Key"], `must be 1 to ${IDEMPOTENCY_KEY_MAX} printable ASCII characters, without spaces`);
  return key;
}

export function taskRoutes(auth: AuthDeps, ctx: TasksContext) {
  return new Elysia({ prefix: "/v1" })
    .use(authenticated(auth))
    .post(
      "/tasks",
      async ({ caller, body, request, set }) => {
        const { task, created } = await createTask(ctx, caller, body, idempotencyKeyOf(request));
        set.status = created ? 202 : 200;
        return taskView(task);
      },
      {
        body: TaskCreateBody,
        response: { 200: TaskView, 202: TaskView, 404: ErrorBody, 409: ErrorBody, 429: ErrorBody },
        detail: secured({
          tags,
          summary: "Start research that answers later: a search, or a call of an endpoint, run off the request path",
          description:
            'Takes the body of `POST /v1/search`, or `{"endpoint": "<stub>", "inputs": {…}}`, or `{"published": "<public_stub>", "inputs": {…}}`, with an optional `metadata` object echoed back. The body is checked as its synchronous call checks it (a 404 or 422 now), then the task is queued: 202 with the task. Read it with `GET /v1/tasks/{task_id}`, or follow `GET /v1/tasks/{task_id}/events`. With an `Idempotency-Key` header a retried create answers 200 with the first task; the same key with another body is a 409. The task is billed once, when it succeeds, as its synchronous call is; a task canceled before it runs costs nothing. An account runs a few tasks at once (Free 1, Pro 5), and may have a bounded number waiting (a 429 past it).',
        }),
      },
    )
    .get("/tasks", async ({ caller, query }) => listBody(await listTasks(ctx, caller.accountId, query), taskView), {
      query: TaskListQuery,
      response: { 200: TaskListBody },
      detail: secured({ tags, summary: "The account's tasks, newest first, by status, a page at a time" }),
    })
    .get("/tasks/:task_id", async ({ caller, params }) => taskView(await getTask(ctx, caller.accountId, params.task_id)), {
      params: TaskIdParams,
      response: { 200: TaskView, 404: ErrorBody },
      detail: secured({
        tags,
        summary: "A task: its status, and its result (exactly the synchronous call's answer) or its error",
      }),
    })
    .get(
      "/tasks/:task_id/events",
      async ({ caller, params, request, server }) => {
        const task = await getTask(ctx, caller.accountId, params.task_id);
        server?.timeout(request, 0);
        return taskEventStream(ctx, task, lastEventId(request.headers.get("last-event-id")), requestMeta(request).id);
      },
      {
        params: TaskIdParams,
        response: {
          200: t.String({
            description:
              'Server-sent events, each with its number as `id` and a JSON `data`: `status` (`{"type": "status", "status": "queued" | "running" | "succeeded" | "failed" | "canceled"}`, with `attempt` when it runs and `error` when it failed), then the run\'s own `context` and `response` (text in pieces, or the structured object). A run begun again after its instance stopped sends `running` with the next `attempt`: start its response afresh. The stream ends after a final status.',
          }),
          404: ErrorBody,
        },
        detail: secured({
          tags,
          summary: "Follow a task as server-sent events; resumable with Last-Event-ID",
        }),
      },
    )
    .post("/tasks/:task_id/cancel", async ({ caller, params }) => taskView(await cancelTask(ctx, caller.accountId, params.task_id)), {
      params: TaskIdParams,
      response: { 200: TaskView, 404: ErrorBody, 409: ErrorBody },
      detail: secured({
        tags,
        summary: "Cancel a task that has not finished: a queued one never runs and costs nothing; a running one stops",
      }),
    });
}
