/**
 * The page reads of one app in progress: fetches in flight (shared by
 * concurrent readers of a URL) and pages read but not yet stored (served to
 * a reader of the same URL meanwhile), and the hot pages held in memory
 * (hot-pages.ts). Shutdown waits for the stores.
 */
import { HotPages } from "./hot-pages.ts";
import type { PageRow } from "./queries.ts";

export interface SharedRead {
  page: PageRow;
  cached: boolean;
  /** Settles when the page is in the cache and the local index. */
  stored: Promise<void>;
}

/** One fetch in flight: the read, and a promise that settles once the site's answer is in (before extraction). */
export interface Flight {
  read: Promise<SharedRead>;
  fetched: Promise<void>;
}

export class PageReads {
  /** main.ts passes the configured size; the default suits a test or a CLI run. */
  constructor(readonly hot: HotPages = new HotPages({ maxBytes: 8 * 1024 * 1024 })) {}

  readonly inflight = new Map<string, Flight>();
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
