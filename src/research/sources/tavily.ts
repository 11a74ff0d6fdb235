/**
 * Tavily's search (`POST /search`, key as a Bearer token). Domain lists go
 * as include_domains / exclude_domains, within Tavily's caps; a whitelist too
 * long to send whole is not sent, since a cut one would narrow it.
 */
import { Type } from "@sinclair/typebox";
import { activeScope, blacklistHosts, hitFrom, wantsHits, whitelistHosts } from "./hits.ts";
import { endpoint, fetchHits, OptionalText } from "./http.ts";
import type { KeyedSettings, SearchHit, SearchOptions, SearchSource } from "./source.ts";

const MAX_RESULTS = 20;
const MAX_INCLUDE = 300;
const MAX_EXCLUDE = 150;

const Result = Type.Object({
  url: Type.String(),
  title: Type.String(),
  content: OptionalText,
  // Sent for news ("Thu, 13 Mar 2025 20:47:23 GMT").
  published_date: OptionalText,
});

export class TavilySource implements SearchSource {
  readonly name = "tavily";
  private readonly baseUrl: string;

  constructor(private readonly settings: KeyedSettings) {
    this.baseUrl = settings.baseUrl ?? "https://api.tavily.com";
  }

  async search(query: string, options: SearchOptions): Promise<SearchHit[]> {
    if (!wantsHits(options)) return [];
    const include = whitelistHosts(activeScope(options.whitelist));
    const json = {
      query,
      max_results: Math.min(options.limit, MAX_RESULTS),
      include_domains: include.length <= MAX_INCLUDE ? include : [],
      exclude_domains: blacklistHosts(activeScope(options.blacklist)).slice(0, MAX_EXCLUDE),
      search_depth: "basic",
    };
    const headers = { Authorization: `Bearer ${this.settings.apiKey}` };
    return fetchHits(
      { provider: this.name, url: endpoint(this.baseUrl, "search"), method: "POST", signal: options.signal, headers, json },
      { item: Result, hit: (result) => hitFrom(result.url, result.title, result.content, result.published_date) },
      options,
    );
  }
}
