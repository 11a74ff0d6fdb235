/**
 * Each instance that runs tasks looks for due monitors every
 * MONITOR_TICK_SECONDS (tasks/monitors.ts runDueMonitors): the look claims
 * what is due with SKIP LOCKED, so a fleet's instances looking at once start
 * each run once. Started with the job queue (its runs are that queue's
 * tasks), stopped with it; its timer never keeps a process alive.
 */
export class MonitorScheduler {
  private timer: ReturnType<typeof setInterval> | undefined;
  private looking: Promise<void> | undefined;

  constructor(
    private readonly everyMs: number,
    private readonly look: () => Promise<unknown>,
    private readonly warn: (message: string, error: unknown) => void,
  ) {}

  /** Looks now, then every `everyMs`; a second start does nothing. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.everyMs);
    this.timer.unref?.();
    this.tick();
  }

  /** Stops looking; resolves once a look under way has ended. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.looking;
  }

  private tick(): void {
    // A look that outlasts the interval is not overlapped by the next: that one is skipped.
    if (this.looking) return;
    this.looking = this.look()
      .then(
        () => {},
        (error: unknown) => this.warn("due monitors could not be looked for", error),
      )
      .finally(() => {
        this.looking = undefined;
      });
  }
}
