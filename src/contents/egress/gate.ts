/** A counting semaphore whose waiters give up when their signal aborts. */
export class Gate {
  private active = 0;
  private readonly waiting: { resolve: () => void; reject: (reason: unknown) => void; signal?: AbortSignal; onAbort: () => void }[] = [];

  constructor(private readonly limit: number) {}

  get busy(): boolean {
    return this.active > 0 || this.waiting.length > 0;
  }

  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.active < this.limit) {
      this.active++;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const index = this.waiting.indexOf(waiter);
          if (index >= 0) this.waiting.splice(index, 1);
          reject(signal!.reason);
        },
      };
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      this.waiting.push(waiter);
    });
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) {
        next.signal?.removeEventListener("abort", next.onAbort);
        next.resolve(); // the slot passes straight to the next waiter
      } else this.active--;
    };
  }
}
