/**
 * Tasks on the wire: the body that starts one (a search's body, or an
 * endpoint's or published endpoint's inputs, with an optional webhook and
 * metadata), and the task as every read shows it. TypeBox, so validation,
 * the types and the OpenAPI document are one thing.
 */
import type { Static, TSchema } from "@sinclair/typebox";
import { t } from "elysia";
import { listOf, pageQuery } from "../http/list-model.ts";
import { ContextEntrySchema, runInfoSchema, SearchRequestBody } from "../research/model.ts";

export const TASK_STATUSES = ["queued", "running", "succeeded", "failed", "canceled"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
/** A task in one of these is done: nothing about it changes again. */
export const FINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(["succeeded", "failed", "canceled"]);

export type TaskKind = "search" | "endpoint" | "published";

// Spelt out: Elysia's types do not see through a union mapped from the list.
export const StatusSchema = t.Union([
  t.Literal("queued"),
  t.Literal("running"),
  t.Literal("succeeded"),
  t.Literal("failed"),
  t.Literal("canceled"),
]);

export const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()], { nullable: true });

/** The most bytes of metadata a task keeps (its JSON text). */
export const METADATA_MAX_BYTES = 4_096;

const Stub = t.String({ minLength: 1, maxLength: 64, description: "The stub of the endpoint." });

/**
 * Every field of the three kinds in one object: which kind it is follows from `prompt`, `endpoint` or
 * `published` (tasks/request.ts refuses none or two of them, and fields that belong to another kind).
 * Unknown fields are refused, not ignored: a misspelt `webhook` would otherwise be a task whose result
 * nobody hears of. The schema lets them through to that check (Elysia would strip them silently).
 */
export const TaskCreateBody = t.Object(
  {
    prompt: t.Optional(SearchRequestBody.properties.prompt),
    image: SearchRequestBody.properties.image,
    source_whitelist: SearchRequestBody.properties.source_whitelist,
    source_blacklist: SearchRequestBody.properties.source_blacklist,
    output_format: SearchRequestBody.properties.output_format,
    endpoint: t.Optional({ ...Stub, description: "Run your designed endpoint with this stub (its live version) instead of a search." }),
    published: t.Optional({
      ...Stub,
      description: "Run the published endpoint with this public stub (its newest version) instead of a search.",
    }),
    // Not records: Elysia "normalises" an array sent there into an object of its items (tasks/request.ts checks the shape).
    inputs: t.Optional(
      t.Unknown({
        description: "The endpoint's inputs, a JSON object, as its own route takes its body. Only with `endpoint` or `published`.",
      }),
    ),
    webhook: t.Optional(
      Nullable(
        t.Object(
          { url: t.String({ minLength: 1, maxLength: 2_048, description: "An https URL that hears the task's end." }) },
          { additionalProperties: false },
        ),
      ),
    ),
    metadata: t.Optional(
      t.Unknown({
        description: `A small JSON object (at most ${METADATA_MAX_BYTES} bytes) kept with the task and echoed back; null for none.`,
      }),
    ),
  },
  { additionalProperties: true },
);
export type TaskCreate = Static<typeof TaskCreateBody>;

export const Timestamp = t.String({ format: "date-time" });

export const TaskResultSchema = t.Object(
  {
    response: t.Union([t.String(), t.Record(t.String(), t.Unknown())]),
    context: t.Array(ContextEntrySchema),
    info: runInfoSchema("The run's info, as the synchronous call answers it."),
  },
  { description: "Exactly what the synchronous call would have answered: `{response, context, info}`." },
);

export const TaskErrorSchema = t.Object(
  {
    code: t.String({ description: "A stable code: the one the synchronous call would have answered with (deadline_exceeded, ...)." }),
    message: t.String(),
  },
  { description: "Why the task failed." },
);

export const TaskView = t.Object({
  id: t.String({ examples: ["task_01jd2x4q8m3v5w6y7z8a9b0c1d"] }),
  object: t.Literal("task"),
  status: StatusSchema,
  kind: t.Union([t.Literal("search"), t.Literal("endpoint"), t.Literal("published")]),
  endpoint: Nullable(t.String({ description: "The endpoint's stub (kind endpoint) or public stub (kind published)." })),
  metadata: Nullable(t.Record(t.String(), t.Unknown())),
  webhook: Nullable(t.Object({ url: t.String() })),
  attempts: t.Integer({
    minimum: 0,
    description: "How many times a worker began the task: more than 1 after its instance stopped mid-run.",
  }),
  created_at: Timestamp,
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
  result: Nullable(TaskResultSchema),
  error: Nullable(TaskErrorSchema),
});
export type TaskViewBody = Static<typeof TaskView>;

export const TaskListBody = listOf(TaskView);

// Elysia's t for the query: its t.Integer coerces the query string's text.
export const TaskListQuery = t.Object({
  status: t.Optional({ ...StatusSchema, description: "Only tasks in this status." }),
  ...pageQuery("Tasks"),
});

export const TaskIdParams = t.Object({ task_id: t.String({ maxLength: 64 }) });
