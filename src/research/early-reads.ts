/**
 * Early reads: while the fan-out still waits for its slowest provider, the
 * top hits of each list that has arrived start reading. The merge decides
 * afterwards which pages the answer uses; by then most of them are read or
 * in flight, and the read stage takes these promises over instead of
 * starting again. Bounded: the first `maxPages` hits of a list, at most
 * twice `maxPages` URLs a run. A read the merge does not choose finishes in
 * the background (the read's fetch has its own deadline) and lands in the
 * page cache and the local index like any other.
 */
import { monotonicTimers } from "../clock.ts";
import { parseRequestedUrl } from "../contents/egress/policy.ts";
import type { PageText } from "../contents/queries.ts";
import { readPageText, type ContentsContext, type PageRead } from "../contents/service.ts";
import { canonicalUrl } from "./canonical-url.ts";
import type { SearchHit } from "./sources/source.ts";

/** A read under way, when it began and when its site answered (monotonic), which the read grace measures. */
export interface StartedRead {
  read: Promise<PageRead<PageText>>;
  startedAt: number;
  /** Settles with the time the site answered; never, for a page from the cache or a failed fetch. */
  fetched: Promise<number>;
}

export class EarlyReads {
  private readonly started = new Map<string, StartedRead>();

  constructor(
    private readonly contents: ContentsContext,
    private readonly maxPages: number,
    private readonly signal: AbortSignal,
  ) {}

  /** Start reading the top of one provider's list (already filtered by the domain lists). */
  offer(hits: SearchHit[]): void {
    for (const hit of hits.slice(0, this.maxPages)) {
      if (this.started.size >= this.maxPages * 2) return;
      const key = canonicalUrl(hit.url);
      if (!key || this.started.has(key)) continue;
      const startedAt = monotonicTimers.now();
      const fetched = Promise.withResolvers<number>();
      const read = (async () =>
        readPageText(this.contents, {
          url: parseRequestedUrl(hit.url, ["url"]),
          signal: this.signal,
          waitForStore: false,
          onFetched: () => fetched.resolve(monotonicTimers.now()),
        }))();
      // Whoever takes the read reports its failure; one nobody takes fails quietly.
      read.catch(() => {});
      this.started.set(key, { read, startedAt, fetched: fetched.promise });
    }
  }

  /** The read started for this canonical URL, if any. */
  take(key: string): StartedRead | undefined {
    return this.started.get(key);
  }
}
