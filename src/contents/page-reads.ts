/**
 * The page reads of one app in progress: fetches in flight (shared by
 * concurrent readers of a URL) and pages read but not yet stored (served to
 * a reader of the same URL meanwhile). Shutdown waits for the stores.
 */
import type { PageRow } from "./queries.ts";

export interface SharedRead {
  page: PageRow;
  cached: boolean;
  /** Settles when the page is in the cache and the local index. */
  stored: Promise<void>;
}

export class PageReads {
  readonly inflight = new Map<string, Promise<SharedRead>>();
  readonly storing = new Map<string, PageRow>();
  private readonly writes = new Set<Promise<void>>();

  track(write: Promise<void>): void {
    this.writes.add(write);
    void write.finally(() => this.writes.delete(write));
  }

  /** Every store started so far, finished. */
  async drain(): Promise<void> {
    while (this.writes.size) await Promise.allSettled([...this.writes]);
  }
}
