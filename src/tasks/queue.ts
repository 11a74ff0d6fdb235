/**
 * The tasks' job queue on pg-boss (db/jobs.ts), which every instance of a
 * fleet shares through the database. Chosen over graphile-worker and BullMQ
 * because it runs on both of the service's stores (PGlite, with its own
 * adapter, and Postgres), so the embedded default needs no Redis; and it has
 * what tasks need without code of ours: a limit of running jobs per group
 * across the fleet with tiers (an account's plan: Free 1, Pro 5), heartbeats
 * (a job whose instance stops beating is retried within seconds, not the
 * 15 minutes of its expiry), retries with backoff and a dead-letter queue.
 *
 * A job carries only its task's id: the task row is the truth, and a job
 * that finds its task canceled or finished completes without running it.
 * The queue starts when first used or when the server starts it, so an app
 * that never creates a task (most tests) never polls.
 */
import { PgBoss, type Job } from "pg-boss";
import type { DatabaseConnection } from "../../db/client.ts";
import { jobStore } from "../../db/jobs.ts";
import type { Logger } from "../log.ts";
import type { Plan } from "../limits/plans.ts";

export const TASKS_QUEUE = "tasks";
/** Where a task's job goes when its retries are spent (its instance died three times running it): it is failed there. */
export const DEAD_TASKS_QUEUE = "tasks-dead";

export interface TaskQueueSettings {
  /** Tasks this instance runs at once (0: none). */
  workers: number;
  concurrency: { free: number; pro: number; enterprise: number };
  heartbeatSeconds: number;
  pollSeconds: number;
  /** A run's own deadline: a job is given this and two minutes more before pg-boss calls it expired. */
  deadlineMs: number;
}

export interface TaskHandlers {
  /** Runs the task; throws to have pg-boss try it again later (a transient refusal, this instance stopping). */
  run(taskId: string, signal: AbortSignal): Promise<void>;
  /** The task's job will not be tried again. */
  dead(taskId: string): Promise<void>;
  /** Deletes the tasks past their retention: every instance sweeps now and then (a sweep finds little after another's). */
  sweep(): Promise<number>;
}

/** How often an instance sweeps finished tasks past their retention. */
const SWEEP_EVERY_MS = 15 * 60_000;

interface TaskJobData {
  task: string;
}

/** Retries of a job whose run threw or whose instance died: then it is dead-lettered. */
const RETRY_LIMIT = 3;

export class TaskQueue {
  private boss: PgBoss | undefined;
  private starting: Promise<PgBoss> | undefined;
  private handlers: TaskHandlers | undefined;
  private workerId: string | undefined;
  private readonly running = new Set<AbortController>();
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly connection: DatabaseConnection,
    private readonly settings: TaskQueueSettings,
    private readonly log: Logger,
  ) {}

  /** Who runs this instance's tasks: registered by the app, working once the queue has started. */
  serve(handlers: TaskHandlers): void {
    this.handlers = handlers;
    if (this.boss) void this.work(this.boss);
  }

  /** Starts the queue (once): the server calls it at start, so the tasks queued before a restart are run. */
  start(): Promise<PgBoss> {
    this.starting ??= this.open().catch((error: unknown) => {
      this.starting = undefined;
      throw error;
    });
    return this.starting;
  }

  /** Queues the task's job, in its account's group at its plan's tier; wakes this instance's workers. */
  async enqueue(taskId: string, account: { id: string; plan: Plan["name"] }, startAfterSeconds = 0): Promise<void> {
    const boss = await this.start();
    await boss.send(TASKS_QUEUE, { task: taskId } satisfies TaskJobData, {
      group: { id: account.id, tier: account.plan },
      ...(startAfterSeconds > 0 ? { startAfter: startAfterSeconds } : {}),
    });
    if (this.workerId) boss.notifyWorker(this.workerId);
  }

  /**
   * Stops taking jobs and gives the running ones `timeoutMs` to finish; those still running then are stopped (their
   * tasks go back to the queue, for another instance).
   */
  async stop(timeoutMs: number): Promise<void> {
    clearInterval(this.sweeper);
    const boss = await this.starting?.catch(() => undefined);
    if (!boss) return;
    await boss.offWork(TASKS_QUEUE).catch(() => {});
    const until = performance.now() + timeoutMs;
    while (this.running.size > 0 && performance.now() < until) await Bun.sleep(50);
    for (const run of this.running) run.abort();
    while (this.running.size > 0 && performance.now() < until + 5_000) await Bun.sleep(50);
    await boss.stop({ graceful: true, timeout: 5_000 }).catch(() => {});
  }

  private async open(): Promise<PgBoss> {
    const { heartbeatSeconds } = this.settings;
    // Heartbeats are checked when the queues are supervised: as often as they beat, so a dead instance's task is taken again within about twice that.
    const checkEvery = Math.min(heartbeatSeconds, 30);
    const boss = new PgBoss({
      ...jobStore(this.connection, Math.max(2, Math.min(this.settings.workers + 2, 10))),
      migrate: true,
      supervise: true,
      schedule: false,
      superviseIntervalSeconds: checkEvery,
      monitorIntervalSeconds: checkEvery,
    });
    boss.on("error", (error) => this.log.warn("the task queue reported an error", { error }));
    await boss.start();
    await boss.createQueue(DEAD_TASKS_QUEUE, { retryLimit: RETRY_LIMIT });
    const options = {
      heartbeatSeconds,
      expireInSeconds: Math.ceil(this.settings.deadlineMs / 1000) + 120,
      retryLimit: RETRY_LIMIT,
      retryDelay: 5,
      retryBackoff: true,
      deadLetter: DEAD_TASKS_QUEUE,
    };
    await boss.createQueue(TASKS_QUEUE, options);
    // A queue made by an earlier start keeps its options: this start's settings (a changed TASK_HEARTBEAT_SECONDS) apply.
    await boss.updateQueue(TASKS_QUEUE, options);
    this.boss = boss;
    if (this.handlers) await this.work(boss);
    return boss;
  }

  private async work(boss: PgBoss): Promise<void> {
    const handlers = this.handlers;
    if (!handlers || this.workerId || this.settings.workers === 0) return;
    this.sweeper = setInterval(() => {
      handlers.sweep().catch((error: unknown) => this.log.warn("finished tasks past their retention could not be deleted", { error }));
    }, SWEEP_EVERY_MS);
    this.sweeper.unref?.();
    const { concurrency } = this.settings;
    this.workerId = await boss.work<TaskJobData>(
      TASKS_QUEUE,
      {
        localConcurrency: this.settings.workers,
        pollingIntervalSeconds: this.settings.pollSeconds,
        batchSize: 1,
        groupConcurrency: { default: concurrency.free, tiers: { ...concurrency } },
      },
      async ([job]: Job<TaskJobData>[]) => {
        const run = new AbortController();
        this.running.add(run);
        try {
          await handlers.run(job!.data.task, run.signal);
        } finally {
          this.running.delete(run);
        }
      },
    );
    await boss.work<TaskJobData>(DEAD_TASKS_QUEUE, { pollingIntervalSeconds: Math.max(this.settings.pollSeconds, 2) }, async (jobs) => {
      for (const job of jobs) await handlers.dead(job.data.task);
    });
  }
}
