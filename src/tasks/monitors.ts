/**
 * Monitors' verbs, free of HTTP: a task body run on a schedule, each run a
 * task (tasks.monitor_id). Made, read, listed, changed, deleted, scoped to
 * their account (another account's monitor is a 404). The scheduler's look
 * (runDueMonitors) starts the runs that are due, one per monitor at a time;
 * a run that succeeds is compared with the monitor's last answer
 * (monitor-change.ts), the comparison written to the run's events, and the
 * monitor's webhook hears `monitor.changed` when the answer changed in
 * substance.
 */
import { getAccount } from "../accounts/queries.ts";
import type { Caller } from "../caller.ts";
import { notFound } from "../errors.ts";
import { looksLikeId, newId } from "../ids.ts";
import type { WebhookSink } from "../webhooks/emit.ts";
import { checkWebhookUrl } from "../webhooks/url.ts";
import { compareResults, type MonitorChanges } from "./monitor-change.ts";
import { MonitorCreateBody, type MonitorCreate, MonitorUpdateBody, type MonitorUpdate, type MonitorViewBody } from "./monitor-model.ts";
import * as mq from "./monitor-queries.ts";
import { DEFAULT_PAGE, pageCursor, pageOf } from "../paging.ts";
import { checkSchedule, nextRunAt, type Schedule } from "./monitor-schedule.ts";
import type { TaskViewBody } from "./model.ts";
import type { TaskRow } from "./queries.ts";
import { checkMetadata, checkTaskWork, refuseUnknown } from "./request.ts";
import { queueTask, type TasksContext } from "./service.ts";
import { taskView } from "./view.ts";

export interface MonitorsContext {
  tasks: TasksContext;
  minEveryMinutes: number;
  /** Where `monitor.changed` goes; absent, changes are only written to the runs' events. */
  webhooks?: WebhookSink;
  /** Starts this instance's job queue (and with it the scheduler, where it runs tasks): a new monitor's first run is due at once. */
  start(): Promise<unknown>;
}

const CREATE_FIELDS = new Set(Object.keys(MonitorCreateBody.properties));
const UPDATE_FIELDS = new Set(Object.keys(MonitorUpdateBody.properties));
const WEBHOOK_FIELDS = new Set(["url"]);

export async function createMonitor(ctx: MonitorsContext, caller: Caller, body: MonitorCreate): Promise<mq.MonitorRow> {
  refuseUnknown(body as Record<string, unknown>, CREATE_FIELDS);
  const { schedule: givenSchedule, webhook, status, metadata: givenMetadata, ...work } = body;
  const metadata = checkMetadata(givenMetadata);
  const webhookUrl = checkWebhook(ctx, webhook);
  const schedule = checkSchedule(givenSchedule, ctx.minEveryMinutes);
  const checked = await checkTaskWork(ctx.tasks, caller.accountId, work);
  const now = new Date(ctx.tasks.clock.now());
  const monitor = await mq.insertMonitor(ctx.tasks.db, {
    id: newId("mon", now.getTime()),
    accountId: caller.accountId,
    keyId: caller.keyId,
    status: status ?? "active",
    ...checked,
    schedule: JSON.stringify(schedule),
    webhookUrl,
    metadata,
    nextRunAt: nextRunAt(schedule, now, true),
    createdAt: now,
    updatedAt: now,
  });
  ctx.start().catch((error: unknown) => ctx.tasks.log.error("the job queue did not start: monitors wait until it does", { error }));
  return monitor;
}

export async function getMonitor(ctx: Pick<MonitorsContext, "tasks">, accountId: string, id: string): Promise<mq.MonitorRow> {
  const monitor = looksLikeId("mon", id) ? await mq.findMonitor(ctx.tasks.db, accountId, id) : null;
  if (!monitor) throw notFound("monitor");
  return monitor;
}

export async function listMonitors(
  ctx: Pick<MonitorsContext, "tasks">,
  accountId: string,
  query: { limit?: number; cursor?: string },
): Promise<{ items: mq.MonitorRow[]; nextCursor: string | null }> {
  const limit = query.limit ?? DEFAULT_PAGE;
  return pageOf(await mq.listMonitors(ctx.tasks.db, accountId, { before: pageCursor("mon", query.cursor), limit }), limit);
}

/**
 * Changes a monitor's schedule, webhook, status or metadata (its body is what it is: a new body is a new monitor).
 * A new schedule, or a paused monitor made active, is next due by the schedule from now.
 */
export async function updateMonitor(ctx: MonitorsContext, accountId: string, id: string, body: MonitorUpdate): Promise<mq.MonitorRow> {
  const monitor = await getMonitor(ctx, accountId, id);
  refuseUnknown(body as Record<string, unknown>, UPDATE_FIELDS);
  const now = new Date(ctx.tasks.clock.now());
  const changes: Parameters<typeof mq.updateMonitor>[3] = { updatedAt: now };
  const schedule = body.schedule === undefined ? undefined : checkSchedule(body.schedule, ctx.minEveryMinutes);
  if (body.webhook !== undefined) changes.webhookUrl = checkWebhook(ctx, body.webhook);
  if (body.metadata !== undefined) changes.metadata = checkMetadata(body.metadata);
  if (body.status !== undefined) changes.status = body.status;
  if (schedule) changes.schedule = JSON.stringify(schedule);
  if (schedule || (body.status === "active" && monitor.status === "paused"))
    changes.nextRunAt = nextRunAt(schedule ?? (JSON.parse(monitor.schedule) as Schedule), now);
  const updated = await mq.updateMonitor(ctx.tasks.db, accountId, monitor.id, changes);
  if (!updated) throw notFound("monitor");
  return updated;
}

function checkWebhook(ctx: Pick<MonitorsContext, "tasks">, webhook: { url: string }): string {
  refuseUnknown(webhook, WEBHOOK_FIELDS, ["body", "webhook"]);
  return checkWebhookUrl(webhook.url, ctx.tasks.egress, ["body", "webhook", "url"]);
}

/** Deletes the monitor; its runs stay (as tasks, until their retention), no longer linked to it. */
export async function deleteMonitor(ctx: Pick<MonitorsContext, "tasks">, accountId: string, id: string): Promise<void> {
  const monitor = await getMonitor(ctx, accountId, id);
  if (!(await mq.deleteMonitor(ctx.tasks.db, accountId, monitor.id))) throw notFound("monitor");
}

export interface MonitorRun extends TaskViewBody {
  monitor: { compared: boolean; changed: boolean; changes: MonitorChanges | null } | null;
}

/** The monitor's runs, newest first, each with its comparison once it succeeded. */
export async function listRuns(
  ctx: Pick<MonitorsContext, "tasks">,
  accountId: string,
  id: string,
  query: { limit?: number; cursor?: string },
): Promise<{ items: MonitorRun[]; nextCursor: string | null }> {
  const monitor = await getMonitor(ctx, accountId, id);
  const limit = query.limit ?? DEFAULT_PAGE;
  const page = pageOf(await mq.listRuns(ctx.tasks.db, accountId, monitor.id, { before: pageCursor("task", query.cursor), limit }), limit);
  const comparisons = await mq.comparisonsOf(
    ctx.tasks.db,
    page.items.map((task) => task.id),
  );
  const items = page.items.map((task) => {
    const data = comparisons.get(task.id);
    const event = data === undefined ? null : (JSON.parse(data) as MonitorRunEvent);
    return { ...taskView(task), monitor: event && { compared: event.compared, changed: event.changed, changes: event.changes } };
  });
  return { items, nextCursor: page.nextCursor };
}

/** The event written to a run's stream once it is compared: `{"type": "monitor", compared, changed, changes}`. */
export interface MonitorRunEvent {
  type: "monitor";
  compared: boolean;
  changed: boolean;
  changes: MonitorChanges | null;
}

/**
 * The scheduler's look: claims the monitors due now (moving each one's next run on) and queues a run of each, unless
 * its last run has not finished (that run is not doubled: the next is due by the schedule). Answers how many it queued.
 */
export async function runDueMonitors(ctx: MonitorsContext): Promise<number> {
  const now = new Date(ctx.tasks.clock.now());
  const due = await mq.claimDueMonitors(ctx.tasks.db, now, (monitor) => nextRunAt(JSON.parse(monitor.schedule) as Schedule, now));
  let queued = 0;
  for (const monitor of due) {
    const log = ctx.tasks.log.child({ monitor_id: monitor.id });
    try {
      if (await mq.hasUnfinishedRun(ctx.tasks.db, monitor.id)) {
        log.info("a monitor's run was skipped: its last run has not finished");
        continue;
      }
      const account = await getAccount(ctx.tasks.db, monitor.accountId);
      if (!account) continue;
      await queueTask(
        ctx.tasks,
        { accountId: account.id, keyId: monitor.keyId, balanceMicros: account.balanceMicros, customRateLimit: account.customRateLimit },
        { kind: monitor.kind, target: monitor.target, request: monitor.request, metadata: null, webhookUrl: null, monitorId: monitor.id },
      );
      queued++;
    } catch (error) {
      // One monitor's refusal (its account's queue full, the queue down) is not the others': they are still started.
      log.warn("a monitor's run could not be queued", { error });
    }
  }
  return queued;
}

/**
 * A monitor's run succeeded: its answer is compared with the last one, the comparison written to its events, and
 * it becomes the answer the next run is compared with. A change in substance is sent to the monitor's webhook.
 */
export async function monitorRunSucceeded(
  ctx: { tasks: Pick<TasksContext, "db" | "events">; webhooks?: WebhookSink },
  task: TaskRow,
): Promise<void> {
  if (task.monitorId === null || task.result === null) return;
  const monitor = await mq.monitorById(ctx.tasks.db, task.monitorId);
  if (!monitor || monitor.accountId !== task.accountId) return;
  const before = monitor.lastResult === null ? null : (JSON.parse(monitor.lastResult) as { response: unknown; context: never[] });
  const after = JSON.parse(task.result) as { response: unknown; context: never[] };
  const changes = before === null ? null : compareResults(before, after);
  await mq.recordAnswer(ctx.tasks.db, monitor.id, task.id, task.result);
  const event: MonitorRunEvent = { type: "monitor", compared: before !== null, changed: changes !== null, changes };
  await ctx.tasks.events.append(task.id, event);
  if (changes === null || !ctx.webhooks) return;
  await ctx.webhooks.emit({
    accountId: monitor.accountId,
    url: monitor.webhookUrl,
    type: "monitor.changed",
    data: {
      monitor: monitorView({ ...monitor, lastTaskId: task.id }),
      task_id: task.id,
      changes,
      before: { task_id: monitor.lastTaskId, response: before!.response },
      after: { task_id: task.id, response: after.response },
    },
  });
}

/** A monitor as every read shows it: its request as the task body it runs. */
export function monitorView(monitor: mq.MonitorRow): MonitorViewBody {
  const request = JSON.parse(monitor.request) as Record<string, unknown>;
  return {
    id: monitor.id,
    object: "monitor",
    status: monitor.status,
    kind: monitor.kind,
    endpoint: monitor.target,
    request: monitor.kind === "search" ? request : { [monitor.kind]: monitor.target, inputs: request },
    schedule: JSON.parse(monitor.schedule) as Schedule,
    webhook: { url: monitor.webhookUrl },
    metadata: monitor.metadata === null ? null : (JSON.parse(monitor.metadata) as Record<string, unknown>),
    next_run_at: monitor.nextRunAt.toISOString(),
    last_run: monitor.lastTaskId === null ? null : { task_id: monitor.lastTaskId },
    created_at: monitor.createdAt.toISOString(),
    updated_at: monitor.updatedAt.toISOString(),
  };
}
