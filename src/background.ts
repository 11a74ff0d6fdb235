/**
 * Writes the service starts but does not wait for (a key's last-used stamp,
 * a session's last-seen time): the request goes on, and these are tracked so
 * a shutdown, or a test, can wait on them instead of guessing how long they take.
 */
export class BackgroundWrites {
  private readonly pending = new Set<Promise<unknown>>();

  /** Tracks a write already started; its failure is the caller's to handle (it arrives here settled or caught). */
  run(write: Promise<unknown>): void {
    const tracked: Promise<unknown> = write.finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /** Resolves once every write started so far (and any they started) has finished. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }
}
