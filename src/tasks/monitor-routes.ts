/** /v1/monitors: a task body run on a schedule (tasks/monitors.ts), and each monitor's runs. */
import { Elysia } from "elysia";
import { ErrorBody } from "../accounts/model.ts";
import { authenticated, type AuthDeps } from "../http/auth.ts";
import { secured } from "../http/openapi.ts";
import { listBody } from "../paging.ts";
import {
  MonitorCreateBody,
  MonitorDeleted,
  MonitorIdParams,
  MonitorListBody,
  MonitorListQuery,
  MonitorRunsBody,
  MonitorUpdateBody,
  MonitorView,
} from "./monitor-model.ts";
import {
  createMonitor,
  deleteMonitor,
  getMonitor,
  listMonitors,
  listRuns,
  monitorView,
  type MonitorsContext,
  updateMonitor,
} from "./monitors.ts";

const tags = ["Monitors"];

export function monitorRoutes(auth: AuthDeps, ctx: MonitorsContext) {
  return new Elysia({ prefix: "/v1" })
    .use(authenticated(auth))
    .post(
      "/monitors",
      async ({ caller, body, set }) => {
        const monitor = await createMonitor(ctx, caller, body);
        set.status = 201;
        return monitorView(monitor);
      },
      {
        body: MonitorCreateBody,
        response: { 201: MonitorView, 404: ErrorBody },
        detail: secured({
          tags,
          summary: "Watch a question: run a task's body on a schedule, and hear of it when the answer changes",
          description:
            'Takes the body of `POST /v1/tasks` (a search\'s body, or `endpoint`/`published` with `inputs`), a `schedule` (`{"every_minutes": N}`, at least 5 unless the operator allows less, or `{"cron": "..."}` in UTC, firing no more often) and a `webhook` (`{"url": "https://..."}`), with optional `metadata` and `status` (`active` or `paused`). The body is checked as the task\'s is (a 404 or 422 now). Each run is a task, billed as one; an interval\'s first run is at once, a cron\'s at its first time. The webhook hears `monitor.changed` only when an answer differs in substance from the last one: a structured answer\'s field, or prose\'s cited sources or claims.',
        }),
      },
    )
    .get("/monitors", async ({ caller, query }) => listBody(await listMonitors(ctx, caller.accountId, query), monitorView), {
      query: MonitorListQuery,
      response: { 200: MonitorListBody },
      detail: secured({ tags, summary: "The account's monitors, newest first, a page at a time" }),
    })
    .get("/monitors/:monitor_id", async ({ caller, params }) => monitorView(await getMonitor(ctx, caller.accountId, params.monitor_id)), {
      params: MonitorIdParams,
      response: { 200: MonitorView, 404: ErrorBody },
      detail: secured({ tags, summary: "A monitor: its body, schedule, webhook, next run and last answered run" }),
    })
    .patch(
      "/monitors/:monitor_id",
      async ({ caller, params, body }) => monitorView(await updateMonitor(ctx, caller.accountId, params.monitor_id, body)),
      {
        params: MonitorIdParams,
        body: MonitorUpdateBody,
        response: { 200: MonitorView, 404: ErrorBody },
        detail: secured({
          tags,
          summary: "Change a monitor's schedule, webhook, status (pause or resume) or metadata",
          description:
            "A new schedule, or a paused monitor resumed, is next due by its schedule from now. The body it runs does not change: make a new monitor for a new body.",
        }),
      },
    )
    .delete(
      "/monitors/:monitor_id",
      async ({ caller, params }) => {
        await deleteMonitor(ctx, caller.accountId, params.monitor_id);
        return { id: params.monitor_id, object: "monitor" as const, deleted: true as const };
      },
      {
        params: MonitorIdParams,
        response: { 200: MonitorDeleted, 404: ErrorBody },
        detail: secured({ tags, summary: "Delete a monitor: it runs no more; its past runs stay readable as tasks" }),
      },
    )
    .get(
      "/monitors/:monitor_id/runs",
      async ({ caller, params, query }) => {
        return listBody(await listRuns(ctx, caller.accountId, params.monitor_id, query), (run) => run);
      },
      {
        params: MonitorIdParams,
        query: MonitorListQuery,
        response: { 200: MonitorRunsBody, 404: ErrorBody },
        detail: secured({
          tags,
          summary: "A monitor's runs, newest first: each a task, with how its answer compared with the one before",
          description:
            "Each run is the task as `GET /v1/tasks/{task_id}` shows it, with `monitor`: `{compared, changed, changes}` once it succeeded (`compared` false on the first answer, which has nothing before it), null until then or when it failed.",
        }),
      },
    );
}
