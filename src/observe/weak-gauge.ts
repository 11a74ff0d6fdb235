/**
 * A read-at-scrape gauge (metrics.ts gaugeFrom) of an object that may be let
 * go: a test process builds many apps, and none is ever closed. The object
 * is read through a WeakRef, so the gauge never keeps it alive, and its
 * source is taken back at the first scrape after it is gone. Live objects'
 * readings are summed (gaugeFrom's rule): in production there is one app per
 * process, so one reading.
 */
import { gaugeFrom } from "./metrics.ts";

/** `read` is given the object each scrape; it must not close over the object itself (that would keep it alive). */
export function gaugeOf<T extends object>(owner: T, name: string, read: (owner: T) => number, labels?: Record<string, string>): void {
  const ref = new WeakRef(owner);
  const stop: () => void = gaugeFrom(
    name,
    () => {
      const held = ref.deref();
      if (held) return read(held);
      stop();
      return 0;
    },
    labels,
  );
}
