/**
 * Waiting on a write the service makes after it answers (a usage record, an
 * access-log line): poll the thing itself until it is there, within a bound,
 * instead of sleeping for a guessed time.
 */
type Missing = false | null | undefined;

export async function waitFor<T>(check: () => T | Missing | Promise<T | Missing>, what: string, timeoutMs = 5_000): Promise<T> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as T;
    if (performance.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(5);
  }
}
