/**
 * The local index (pages the service has already read) as a search source.
 * The whitelist goes to the index as its `domains` (filtered in SQL); the
 * index has no blacklist, so excluded pages are dropped here, after asking
 * for a few more so the limit can still be met.
 */
import type { LocalIndex } from "../../contents/local-index.ts";
import { activeScope, finishHits, wantsHits } from "./hits.ts";
import type { SearchHit, SearchOptions, SearchSource } from "./source.ts";

const MAX_INDEX_LIMIT = 100;

export class LocalSource implements SearchSource {
  readonly name = "local";

  constructor(private readonly index: LocalIndex) {}

  async search(query: string, options: SearchOptions): Promise<SearchHit[]> {
    if (!wantsHits(options)) return [];
    const whitelist = activeScope(options.whitelist);
    const domains = whitelist ? [...whitelist.hosts, ...whitelist.prefixes] : undefined;
    const asked = activeScope(options.blacklist) ? Math.min(MAX_INDEX_LIMIT, options.limit * 2) : options.limit;
    const found = await this.index.search(query, { domains, limit: asked, signal: options.signal });
    options.signal.throwIfAborted();
    const hits = found.map((hit) => ({
      url: hit.url,
      title: hit.title ?? hit.siteName ?? "",
      snippet: hit.snippet,
      publishedAt: hit.publishedAt ? hit.publishedAt.toISOString() : null,
    }));
    return finishHits(hits, options);
  }
}
