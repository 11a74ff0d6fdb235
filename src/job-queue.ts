/**
 * The service's job queue: one pg-boss instance per process (db/jobs.ts
 * says where it keeps its jobs), shared by the features that queue work
 * (tasks, webhook deliveries). A feature defines its queues and their
 * workers once (define); they are made and served when the queue starts:
 * at the server's start, so jobs queued before a restart are worked, or at
 * the first job sent, so an app that sends none (most tests) never polls.
 *
 * pg-boss over graphile-worker and BullMQ: it runs on both of the service's
 * stores (PGlite, through its own adapter, and Postgres), so the embedded
 * default needs no Redis; and it brings what the features need without code
 * of ours: a limit of running jobs per group across the fleet with tiers,
 * heartbeats (a job whose instance stops beating is retried at the next
 * supervision, not at its expiry), retries with backoff, dead letters.
 */
import { PgBoss, type Job, type JobInsert, type Queue, type SendOptions, type WorkOptions } from "pg-boss";

/** A queue's options, as pg-boss takes them when making it. */
export type QueueOptions = Omit<Queue, "name">;
import type { DatabaseConnection } from "../db/client.ts";
import { jobStore } from "../db/jobs.ts";
import type { Config } from "./config.ts";
import type { Logger } from "./log.ts";

/** The queue's settings from the configuration: supervised as often as tasks beat, a pool a little larger than the workers. */
export function jobQueueSettings(config: Pick<Config, "tasks">): JobQueueSettings {
  return {
    superviseSeconds: Math.min(config.tasks.heartbeatSeconds, 30),
    poolMax: Math.max(2, Math.min(config.tasks.workers + 2, 10)),
  };
}

/** How often a queue's second and later workers poll on their own: they are woken when there is work. */
const SIBLING_POLL_SECONDS = 30;

export interface JobQueueSettings {
  /** How often queues are supervised (heartbeats checked, expired jobs failed), in seconds. */
  superviseSeconds: number;
  /** Connections of pg-boss's own pool on Postgres (the embedded database has one, shared). */
  poolMax: number;
}

/** Works one job; `signal` aborts when the process stops before the job is done (its job is then tried again elsewhere). */
export type JobHandler<T> = (data: T, signal: AbortSignal, job: Job<T>) => Promise<void>;

/** Something that runs while the queue does (JobQueue.alongside). */
export interface QueueService {
  start(): void;
  stop(): Promise<void>;
}

interface Definition {
  options: QueueOptions;
  worker?: { options: WorkOptions; handler: JobHandler<object> };
}

export class JobQueue {
  private readonly definitions = new Map<string, Definition>();
  private starting: Promise<PgBoss> | undefined;
  /** Each queue's workers on this instance, by their pg-boss ids. */
  private readonly workers = new Map<string, string[]>();
  private readonly running = new Set<AbortController>();
  private readonly services: QueueService[] = [];
  private stopped = false;

  constructor(
    private readonly connection: DatabaseConnection,
    private readonly settings: JobQueueSettings,
    private readonly log: Logger,
  ) {}

  /**
   * A queue, made (or its options brought up to date) when the queue starts, and its worker on this instance (none:
   * this instance only sends to it). Defining again replaces the definition.
   */
  define<T extends object>(name: string, options: QueueOptions, worker?: { options: WorkOptions; handler: JobHandler<T> }): void {
    this.definitions.set(name, { options, ...(worker ? { worker: worker as { options: WorkOptions; handler: JobHandler<object> } } : {}) });
  }

  /**
   * A service of this instance that runs while the queue does (a scheduler that queues work on it): started once the
   * queue has started and its workers with it, stopped first when it stops.
   */
  alongside(service: QueueService): void {
    this.services.push(service);
  }

  /** Starts the queue, once: makes the defined queues and starts their workers. */
  start(): Promise<PgBoss> {
    this.starting ??= this.open().catch((error: unknown) => {
      this.starting = undefined;
      throw error;
    });
    return this.starting;
  }

  /** Sends a job (starting the queue if need be) and wakes this instance's worker of that queue. */
  async send(name: string, data: object, options: SendOptions = {}): Promise<void> {
    const boss = await this.start();
    await boss.send(name, data, options);
    for (const worker of this.workers.get(name) ?? []) boss.notifyWorker(worker);
  }

  /** Sends many jobs in one statement (a batch's: a thousand sends would be a thousand round trips), and wakes the worker. */
  async sendMany(name: string, jobs: JobInsert[]): Promise<void> {
    if (jobs.length === 0) return;
    const boss = await this.start();
    await boss.insert(name, jobs);
    for (const worker of this.workers.get(name) ?? []) boss.notifyWorker(worker);
  }

  /**
   * Stops taking jobs and gives the running ones `timeoutMs` to finish; those still running then are aborted (their
   * handlers put their work back, or pg-boss retries their jobs once their heartbeats stop).
   */
  async stop(timeoutMs: number): Promise<void> {
    this.stopped = true;
    for (const service of this.services) await service.stop().catch(() => {});
    const boss = await this.starting?.catch(() => undefined);
    if (!boss) return;
    for (const name of this.workers.keys()) await boss.offWork(name).catch(() => {});
    const until = performance.now() + timeoutMs;
    while (this.running.size > 0 && performance.now() < until) await Bun.sleep(50);
    for (const run of this.running) run.abort();
    while (this.running.size > 0 && performance.now() < until + 5_000) await Bun.sleep(50);
    await boss.stop({ graceful: true, timeout: 5_000 }).catch(() => {});
  }

  private async open(): Promise<PgBoss> {
    const every = this.settings.superviseSeconds;
    const boss = new PgBoss({
      ...jobStore(this.connection, this.settings.poolMax),
      migrate: true,
      supervise: true,
      schedule: false,
      superviseIntervalSeconds: every,
      monitorIntervalSeconds: every,
      // What the service does not use is not run every few seconds: job flows (every 5 s by default), background
      // migrations (every minute) and the instance registry. Idle on the embedded database these cost 12 ms of CPU a second.
      flowIntervalSeconds: 3_600,
      bamIntervalSeconds: 3_600,
      registerInstance: false,
    });
    boss.on("error", (error) => this.log.warn("the job queue reported an error", { error }));
    await boss.start();
    // Queues that name no dead letters first: a queue's dead-letter queue must exist before it.
    const ordered = [...this.definitions].sort(
      ([, a], [, b]) => Number(a.options.deadLetter !== undefined) - Number(b.options.deadLetter !== undefined),
    );
    for (const [name, { options }] of ordered) {
      await boss.createQueue(name, options);
      // A queue made by an earlier start keeps its options: this start's settings apply.
      await boss.updateQueue(name, options);
    }
    if (!this.stopped)
      for (const [name, definition] of this.definitions) if (definition.worker) await this.work(boss, name, definition.worker);
    if (!this.stopped) for (const service of this.services) service.start();
    return boss;
  }

  /**
   * `localConcurrency` workers, each a pg-boss worker of its own that asks again as soon as it has finished a job:
   * pg-boss's worker otherwise waits out its polling interval after every job, so a queue with work waiting ran at
   * most workers / interval jobs a second (8 a second for 4 workers polling every 0.5 s; bench:tasks measured 7.9,
   * the workers busy 30% of the time). Idle, only the first worker polls at the queue's interval (each poll is a
   * query, and on the embedded database the process's own time: 4 workers of two queues polling cost 55 ms of CPU a
   * second); the others poll rarely, and are woken whenever a worker takes a job (there may be more) or one is sent.
   */
  private async work(boss: PgBoss, name: string, worker: NonNullable<Definition["worker"]>): Promise<void> {
    const { localConcurrency = 1, pollingIntervalSeconds = 2, ...options } = worker.options;
    const ids: string[] = [];
    for (let n = 0; n < localConcurrency; n++) {
      let own = "";
      const interval = n === 0 ? pollingIntervalSeconds : Math.max(pollingIntervalSeconds, SIBLING_POLL_SECONDS);
      own = await boss.work<object>(
        name,
        { batchSize: 1, ...options, localConcurrency: 1, pollingIntervalSeconds: interval },
        async (jobs: Job<object>[]) => {
          for (const id of ids) if (id !== own && !this.stopped) boss.notifyWorker(id);
          for (const job of jobs) {
            const run = new AbortController();
            this.running.add(run);
            try {
              await worker.handler(job.data, run.signal, job);
            } finally {
              this.running.delete(run);
              if (!this.stopped) boss.notifyWorker(own);
            }
          }
        },
      );
      ids.push(own);
    }
    this.workers.set(name, ids);
  }
}
