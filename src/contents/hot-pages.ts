/**
 * Hot pages: the pages this process read or served last, held in memory in
 * front of the page cache's table, bounded by their size (least recently
 * used first out). A hit costs no database statement.
 *
 * Pages are shared, public and only ever replaced by a newer read, so an
 * entry needs no invalidation message: its version is its fetch time. A
 * copy too old for the call's max age is looked up in the table (where
 * another instance may have stored a newer one), and whatever is newer
 * replaces the entry; an older copy never overwrites a newer one.
 *
 * What a view of a page counts (its words and tokens, per format and cut)
 * is kept with the entry: a hot page is served many times in the same
 * shape, and counting its tokens costs more than the rest of the call.
 */
import { LRUCache } from "lru-cache";
import type { PageRow } from "./queries.ts";

export interface HotPagesOptions {
  /** Bytes of page text held at most; 0 turns the cache off. */
  maxBytes: number;
  /** A page larger than this is not held (one page must not evict all the others). */
  maxPageBytes?: number;
}

export interface HotPage {
  row: PageRow;
  /** Counts of views of this page, by format and cut: a few at most. */
  counts: Map<string, { words: number; tokens: number }>;
}

const MAX_VIEWS_COUNTED = 8;

/** Approximate bytes a row holds in memory: its strings as UTF-16, links as their URLs, and a fixed overhead. */
function sizeOf(row: PageRow): number {
  let links = 0;
  for (const link of (row.links as unknown[] | null) ?? []) links += typeof link === "string" ? link.length : 64;
  return 2 * (row.html.length + row.markdown.length + row.text.length + row.url.length + row.finalUrl.length + links) + 512;
}

export class HotPages {
  private readonly cache: LRUCache<string, HotPage> | null;

  constructor(options: HotPagesOptions) {
    const maxPageBytes = Math.min(options.maxPageBytes ?? Math.floor(options.maxBytes / 8), options.maxBytes);
    this.cache =
      options.maxBytes > 0
        ? new LRUCache<string, HotPage>({
            maxSize: options.maxBytes,
            maxEntrySize: maxPageBytes,
            sizeCalculation: (page) => sizeOf(page.row),
          })
        : null;
  }

  /** The entry for a URL when its copy was fetched at or after `since` (ms since the epoch). */
  fresh(url: string, since: number): HotPage | undefined {
    const hit = this.cache?.get(url);
    return hit && hit.row.fetchedAt.getTime() >= since ? hit : undefined;
  }

  /** Holds a row read or stored, unless a newer copy of the page is held already. */
  hold(row: PageRow): void {
    if (!this.cache) return;
    const held = this.cache.peek(row.url);
    if (held && held.row.fetchedAt.getTime() > row.fetchedAt.getTime()) return;
    if (held?.row.id === row.id && held.row.fetchedAt.getTime() === row.fetchedAt.getTime()) return;
    this.cache.set(row.url, { row, counts: new Map() });
  }

  /** The counts of one view of a held page, computed once. */
  static counted(page: HotPage, view: string, count: () => { words: number; tokens: number }) {
    let counts = page.counts.get(view);
    if (!counts) {
      counts = count();
      if (page.counts.size < MAX_VIEWS_COUNTED) page.counts.set(view, counts);
    }
    return counts;
  }

  get size(): number {
    return this.cache?.size ?? 0;
  }

  get bytes(): number {
    return this.cache?.calculatedSize ?? 0;
  }
}
