/**
 * Monitors on the wire: the body that makes one (a task's body, a schedule
 * and a webhook), the body that changes one, and the monitor as every read
 * shows it. Unknown fields reach tasks/monitors.ts to be refused by name.
 */
import type { Static, TSchema } from "@sinclair/typebox";
import { t } from "elysia";
import { listOf, pageQuery } from "../http/list-model.ts";
import { TaskCreateBody, TaskView } from "./model.ts";

const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()], { nullable: true });

// Extra fields are let through to tasks/monitors.ts, which refuses them by name (Elysia would strip them silently).
const ScheduleSchema = t.Union(
  [
    t.Object(
      { every_minutes: t.Number({ description: "Run every N minutes (at least the operator's minimum, 5 by default)." }) },
      { additionalProperties: true },
    ),
    t.Object(
      {
        cron: t.String({
          minLength: 1,
          maxLength: 128,
          description: "A cron expression in UTC: 5 fields, or 6 with seconds first, or an alias such as @daily.",
        }),
      },
      { additionalProperties: true },
    ),
  ],
  { description: 'When it runs: `{"every_minutes": N}` or `{"cron": "..."}`.' },
);

const WebhookSchema = t.Object(
  { url: t.String({ minLength: 1, maxLength: 2_048, description: "An https URL that hears `monitor.changed`." }) },
  { additionalProperties: true },
);

const StatusSchema = t.Union([t.Literal("active"), t.Literal("paused")], {
  description: "active runs on its schedule; paused does not run.",
});

const { webhook: _taskWebhook, metadata, ...taskFields } = TaskCreateBody.properties;

export const MonitorCreateBody = t.Object(
  {
    ...taskFields,
    metadata,
    schedule: ScheduleSchema,
    webhook: WebhookSchema,
    status: t.Optional(StatusSchema),
  },
  { additionalProperties: true },
);
export type MonitorCreate = Static<typeof MonitorCreateBody>;

export const MonitorUpdateBody = t.Object(
  {
    schedule: t.Optional(ScheduleSchema),
    webhook: t.Optional(WebhookSchema),
    status: t.Optional(StatusSchema),
    metadata,
  },
  { additionalProperties: true },
);
export type MonitorUpdate = Static<typeof MonitorUpdateBody>;

const Timestamp = t.String({ format: "date-time" });

export const MonitorView = t.Object({
  id: t.String({ examples: ["mon_01jd2x4q8m3v5w6y7z8a9b0c1d"] }),
  object: t.Literal("monitor"),
  status: StatusSchema,
  kind: t.Union([t.Literal("search"), t.Literal("endpoint"), t.Literal("published")]),
  endpoint: Nullable(t.String({ description: "The endpoint's stub (kind endpoint) or public stub (kind published)." })),
  request: t.Record(t.String(), t.Unknown(), { description: "The task body each run runs." }),
  schedule: ScheduleSchema,
  webhook: t.Object({ url: t.String() }),
  metadata: Nullable(t.Record(t.String(), t.Unknown())),
  next_run_at: Timestamp,
  last_run: Nullable(t.Object({ task_id: t.String() }, { description: "The last run that succeeded: what the next is compared with." })),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type MonitorViewBody = Static<typeof MonitorView>;

export const MonitorListBody = listOf(MonitorView);

export const MonitorListQuery = t.Object(pageQuery("Monitors"));

/** What a run's comparison with the run before found: null until it is made (the run not yet succeeded). */
export const RunComparison = t.Object(
  {
    compared: t.Boolean({ description: "false on the monitor's first answer: there was none before it to compare with." }),
    changed: t.Boolean(),
    changes: Nullable(t.Unknown({ description: "What changed (fields by path, or prose's sources and claims); null when nothing did." })),
  },
  { description: "How this run's answer compares with the last answer before it." },
);

export const MonitorRunView = t.Composite([TaskView, t.Object({ monitor: Nullable(RunComparison) })]);

export const MonitorRunsBody = listOf(MonitorRunView);

export const MonitorIdParams = t.Object({ monitor_id: t.String({ maxLength: 64 }) });

export const MonitorDeleted = t.Object({ id: t.String(), object: t.Literal("monitor"), deleted: t.Literal(true) });
