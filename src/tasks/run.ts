/**
 * One task run by a worker: the task taken (running, one more attempt), its
 * account read afresh (a suspended account's task fails as its call would),
 * then the same run its synchronous call makes: a search through the run
 * wrapper, an endpoint through the endpoint routes' own code. It is billed
 * like that call, once: its usage record carries an event id made from the
 * task's id, so a task run again after its instance died mid-run is debited
 * once. A run that succeeds stores `{response, context, info}` exactly as
 * the synchronous call answers it; one that fails, the code and message that
 * call would have answered. A transient refusal (this instance's runs full,
 * usage not writable) puts the task back in the queue; a cancel stops the
 * run within CANCEL_CHECK_MS, wherever it was canceled.
 */
import type { Database } from "../../db/client.ts";
import { getAccount } from "../accounts/queries.ts";
import { accountCaller } from "../accounts/account-caller.ts";
import { assertInGoodStanding } from "../accounts/standing.ts";
import type { UsageSink } from "../call-usage.ts";
import type { Clock } from "../clock.ts";
import { calledVersion } from "../endpoints/reads.ts";
import { runOwned } from "../endpoints/runtime/call.ts";
import type { EndpointRunResult } from "../endpoints/runtime/graph-run.ts";
import type { EndpointsContext } from "../endpoints/service.ts";
import { ServiceError } from "../errors.ts";
import { Call } from "../http/call.ts";
import type { Logger } from "../log.ts";
import { metrics } from "../observe/metrics.ts";
import { rootSpan } from "../observe/trace.ts";
import { findCallable } from "../marketplace/listings.ts";
import { runPublished } from "../marketplace/run.ts";
import type { SearchAnswer } from "../research/run/drain.ts";
import { answerSearch, checkSearchBody, runOf, type RunDeps } from "../research/run/hold.ts";
import { faceOutcome, logOutcome } from "../research/run/outcome.ts";
import type { ResearchEvent } from "../research/types.ts";
import { taskEnded } from "./batch-end.ts";
import type { BatchPacer } from "./batch-pacing.ts";
import type { TaskEvent, TaskEvents } from "./events.ts";
import { notifyEnd } from "./notify.ts";
import type { WebhookSink } from "../webhooks/emit.ts";
import { claimTask, finishTask, requeueTask, statusOf, taskById, type TaskRow } from "./queries.ts";

/** How often a running task looks whether it was canceled (on whichever instance the cancel came). */
export const CANCEL_CHECK_MS = 1_000;
/** Response text is written to the task's events in pieces at most this far apart. */
const DELTA_FLUSH_MS = 200;

/** The usage route of a task's run: one record per task, under its event id. */
export const TASK_RUN_ROUTE = "POST /v1/tasks (run)";

/** Refusals that say "not now", not "no": the task waits in the queue and runs later. */
const TRANSIENT = new Set(["queue_full", "usage_unavailable", "rate_limiter_unavailable", "service_unavailable", "draining"]);

export interface TaskRunDeps {
  db: Database;
  clock: Clock;
  log: Logger;
  runs: RunDeps;
  endpoints: EndpointsContext;
  usage: UsageSink;
  events: TaskEvents;
  webhooks: WebhookSink;
  /** Puts a task back in the queue to run after `seconds`. */
  requeue(task: TaskRow, seconds: number): Promise<void>;
  /** Hears a task that succeeded, before its final event is written (a monitor's run is compared here). */
  succeeded?(task: TaskRow): Promise<void>;
  /** A batch's task takes its token here before it runs (batch-pacing.ts). */
  pace: BatchPacer;
}

/** The usage event id of a task's run: the task id's time and randomness under the usage prefix. */
export function taskEventId(taskId: string): string {
  return `use_${taskId.slice("task_".length)}`;
}

/** Runs the task behind a job. Throws (for the queue to try the job again later) only when this instance is stopping. */
export async function runTask(deps: TaskRunDeps, taskId: string, stopping: AbortSignal): Promise<void> {
  const waiting = await taskById(deps.db, taskId);
  if (!waiting || (waiting.status !== "queued" && waiting.status !== "running")) return;
  // A batch's task, and one a dashboard session started (its create spent the dashboard's own allowance, not the plan's),
  // waits for its plan's token unclaimed (no attempt counted); one found running was begun, and paid for, already.
  if ((waiting.batchId !== null || waiting.keyId === null) && waiting.status === "queued") {
    const wait = await deps.pace(waiting);
    if (wait > 0) return deps.requeue(waiting, wait);
  }
  const task = await claimTask(deps.db, taskId, new Date(deps.clock.now()));
  if (!task) return; // canceled, finished or gone: nothing to run
  // No request around a task's run: its trace starts here, and its research run's spans go under it.
  const span = rootSpan("task.run", { "task.kind": task.kind, "task.attempt": task.attempts });
  const log = deps.log.child(span.traceId ? { task_id: task.id, trace_id: span.traceId } : { task_id: task.id });
  await deps.events.append(task.id, { type: "status", status: "running", attempt: task.attempts });
  const canceled = new AbortController();
  const watch = setInterval(() => {
    statusOf(deps.db, task.id).then(
      (status) => status === "canceled" && canceled.abort(new ServiceError("bad_request", "the task was canceled")),
      () => {},
    );
  }, CANCEL_CHECK_MS);
  const signal = AbortSignal.any([canceled.signal, stopping]);
  const started = performance.now();
  let call: Call | undefined;
  // A task's line, as a request has its access-log line: which instance ran which attempt, how it ended, how long it took.
  let ending = "failed";
  try {
    const account = await getAccount(deps.db, task.accountId);
    if (!account) throw new ServiceError("not_found", "the task's account no longer exists");
    assertInGoodStanding(account);
    const caller = accountCaller(account, task.keyId === null ? null : { id: task.keyId, prefix: null });
    call = new Call({
      caller,
      address: () => null,
      requestId: task.id,
      route: TASK_RUN_ROUTE,
      billable: true,
      usage: deps.usage,
      now: () => deps.clock.now(),
      log,
      eventId: taskEventId(task.id),
      span,
    });
    const answer = await answerTask(deps, task, call, signal);
    const done = await finishTask(deps.db, task.id, { status: "succeeded", result: JSON.stringify(answer) }, new Date(deps.clock.now()));
    ending = done ? "succeeded" : "canceled";
    if (done) {
      // What hears it must not fail the task: its answer is stored and billed.
      await deps.succeeded?.(done).catch((error: unknown) => log.error("a task's success was not heard", { error }));
      await ended(deps, done, { type: "status", status: "succeeded" });
    }
  } catch (error) {
    if (canceled.signal.aborted) {
      ending = "canceled";
      return; // the cancel wrote the task's end and its event
    }
    if (stopping.aborted) {
      ending = "requeued: this instance stopped";
      // This instance is stopping: the task goes back to the queue, and its job is tried again elsewhere.
      await requeueTask(deps.db, task.id);
      throw new Error("the instance stopped while the task ran");
    }
    const outcome = faceOutcome(error, task.id);
    if (TRANSIENT.has(outcome.code) && (await requeueTask(deps.db, task.id))) {
      ending = `requeued: ${outcome.code}`;
      await deps.events.append(task.id, { type: "status", status: "queued" });
      await deps.requeue(task, Number(outcome.headers["retry-after"] ?? 5));
      return;
    }
    logOutcome(log, task.id, outcome, "task");
    call?.finish(outcome.status);
    const detail = outcome.body.detail;
    const failure = { code: outcome.code, message: typeof detail === "string" ? detail : outcome.message };
    const done = await finishTask(
      deps.db,
      task.id,
      { status: "failed", errorCode: failure.code, errorMessage: failure.message },
      new Date(deps.clock.now()),
    );
    if (done) await ended(deps, done, { type: "status", status: "failed", error: failure });
  } finally {
    clearInterval(watch);
    log.info("task", { attempt: task.attempts, outcome: ending, ms: Math.round(performance.now() - started) });
    const outcome = ending.startsWith("requeued") ? "requeued" : ending;
    metrics.tasksFinished.inc({ outcome });
    span.set({ "task.outcome": outcome });
    if (outcome === "failed") span.fail("failed");
    span.end();
  }
}

/**
 * The task's final event, its webhook's message, then its batch's end if it was the last (a failure to mark it is
 * logged: the task's end stands).
 */
async function ended(deps: TaskRunDeps, task: TaskRow, event: TaskEvent): Promise<void> {
  await deps.events.append(task.id, event);
  await notifyEnd(deps, task);
  await taskEnded(deps, task).catch((error: unknown) =>
    deps.log.warn("a batch's end could not be marked", { task_id: task.id, batch_id: task.batchId, error }),
  );
}

/** The task's answer, as its synchronous call gives it; its events written as they come. */
async function answerTask(deps: TaskRunDeps, task: TaskRow, call: Call, signal: AbortSignal): Promise<SearchAnswer | EndpointRunResult> {
  const request = JSON.parse(task.request) as Record<string, unknown>;
  if (task.kind === "search") {
    const writer = new EventWriter(deps.events, task.id);
    try {
      const research = checkSearchBody(deps.runs, request as Parameters<typeof checkSearchBody>[1]);
      const { answer, usage } = await answerSearch(deps.runs, research, runOf(call, { signal }), (event) => writer.hear(event));
      await writer.flushed();
      await call.charge(usage);
      return answer;
    } finally {
      await writer.flushed().catch(() => {});
    }
  }
  let answer: EndpointRunResult;
  if (task.kind === "endpoint") {
    const version = await calledVersion(deps.endpoints, task.accountId, task.target!, null);
    answer = await runOwned(deps.runs, call, task.target!, version, request, signal);
  } else {
    const published = await findCallable(deps.endpoints, task.target!);
    answer = await runPublished(deps.runs, call, published, published.versions.at(-1)!, request, signal);
  }
  // An endpoint answers in one piece: its events are the answer's parts.
  await deps.events.append(task.id, { type: "context", content: answer.context });
  await deps.events.append(task.id, { type: "response", content: answer.response });
  return answer;
}

/** Writes a run's events in order, its response text in pieces (one row per DELTA_FLUSH_MS, not one per token). */
class EventWriter {
  private chain: Promise<unknown> = Promise.resolve();
  private text = "";
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly events: TaskEvents,
    private readonly taskId: string,
  ) {}

  hear(event: ResearchEvent | { type: "started" }): void {
    if (event.type === "started") return;
    if (event.type === "response" && typeof event.content === "string") {
      this.text += event.content;
      this.timer ??= setTimeout(() => this.flushText(), DELTA_FLUSH_MS);
      return;
    }
    this.flushText();
    this.write({ type: event.type, content: event.content });
  }

  /** Resolves once everything heard is written; rejects with the first failed write. */
  async flushed(): Promise<void> {
    this.flushText();
    await this.chain;
  }

  private flushText(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.text) return;
    const content = this.text;
    this.text = "";
    this.write({ type: "response", content });
  }

  private write(event: { type: "context" | "response"; content: unknown }): void {
    this.chain = this.chain.then(() => this.events.append(this.taskId, event));
  }
}
