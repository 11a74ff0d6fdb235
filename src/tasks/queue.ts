/**
 * The tasks' queues on the service's job queue (src/job-queue.ts): a job
 * carries only its task's id (the task row is the truth, and a job that
 * finds its task canceled or finished completes without running it), in its
 * account's group at its plan's tier, so an account's running tasks are
 * bounded across the fleet (Free 1, Pro 5). A running job beats every
 * TASK_HEARTBEAT_SECONDS / 2; one whose instance stops beating is tried
 * again, three times, then dead-lettered, and its task failed.
 */
import type { JobQueue } from "../job-queue.ts";
import type { Plan } from "../limits/plans.ts";
import type { Config } from "../config.ts";

export const TASKS_QUEUE = "tasks";
/** Where a task's job goes when its retries are spent (its instance died three times running it): it is failed there. */
export const DEAD_TASKS_QUEUE = "tasks-dead";

/** Retries of a job whose run threw or whose instance died: then it is dead-lettered. */
const RETRY_LIMIT = 3;
/** How often an instance sweeps finished tasks past their retention. */
const SWEEP_EVERY_MS = 15 * 60_000;

export interface TaskHandlers {
  /** Runs the task; throws to have it tried again later (this instance stopping under it). */
  run(taskId: string, signal: AbortSignal): Promise<void>;
  /** The task's job will not be tried again. */
  dead(taskId: string): Promise<void>;
  /** Deletes the tasks past their retention: every instance that runs tasks sweeps now and then (a sweep finds little after another's). */
  sweep(): Promise<number>;
}

interface TaskJob {
  task: string;
}

export class TaskQueue {
  /** When this instance last swept (performance.now()); it sweeps after a task once SWEEP_EVERY_MS have passed. */
  private sweptAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly jobs: JobQueue,
    private readonly settings: Config["tasks"] & { deadlineMs: number },
  ) {}

  /** Defines the tasks' queues, with this instance's workers (none with TASK_WORKERS=0). */
  serve(handlers: TaskHandlers, warn: (message: string, error: unknown) => void): void {
    const { workers, concurrency, pollSeconds, heartbeatSeconds } = this.settings;
    this.jobs.define(
      DEAD_TASKS_QUEUE,
      { retryLimit: RETRY_LIMIT },
      {
        // Rare, and not urgent: the task it fails has already waited out three lives.
        options: { pollingIntervalSeconds: Math.max(pollSeconds, 15) },
        handler: (data: TaskJob) => handlers.dead(data.task),
      },
    );
    this.jobs.define(
      TASKS_QUEUE,
      {
        heartbeatSeconds,
        // The run's own deadline, and two minutes more, before pg-boss calls the job expired.
        expireInSeconds: Math.ceil(this.settings.deadlineMs / 1000) + 120,
        retryLimit: RETRY_LIMIT,
        retryDelay: 5,
        retryBackoff: true,
        deadLetter: DEAD_TASKS_QUEUE,
      },
      workers === 0
        ? undefined
        : {
            options: {
              localConcurrency: workers,
              pollingIntervalSeconds: pollSeconds,
              groupConcurrency: { default: concurrency.free, tiers: { ...concurrency } },
            },
            handler: async (data: TaskJob, signal) => {
              await handlers.run(data.task, signal);
              // The sweep rides on the work: an instance that runs tasks sweeps now and then, and needs no timer of its own.
              if (performance.now() - this.sweptAt < SWEEP_EVERY_MS) return;
              this.sweptAt = performance.now();
              handlers.sweep().catch((error: unknown) => warn("finished tasks past their retention could not be deleted", error));
            },
          },
    );
  }

  /** Queues many tasks' jobs at once (a batch's), in their account's group at its plan's tier. */
  enqueueMany(taskIds: string[], account: { id: string; plan: Plan["name"] }): Promise<void> {
    return this.jobs.sendMany(
      TASKS_QUEUE,
      taskIds.map((id) => ({ data: { task: id } satisfies TaskJob, group: { id: account.id, tier: account.plan } })),
    );
  }

  /** Queues the task's job, in its account's group at its plan's tier. */
  enqueue(taskId: string, account: { id: string; plan: Plan["name"] }, startAfterSeconds = 0): Promise<void> {
    return this.jobs.send(TASKS_QUEUE, { task: taskId } satisfies TaskJob, {
      group: { id: account.id, tier: account.plan },
      ...(startAfterSeconds > 0 ? { startAfter: startAfterSeconds } : {}),
    });
  }
}
