/**
 * SearXNG's JSON API (`GET /search?format=json`, which an instance must
 * enable under `search.formats`). A metasearch engine has no domain filter
 * of its own, but most of its engines understand `site:`, so a whitelist of
 * one host becomes `site:host` in the query; every list is applied exactly
 * to the results afterwards.
 */
import { Type } from "@sinclair/typebox";
import { activeScope, hitFrom, wantsHits, whitelistHosts } from "./hits.ts";
import { endpoint, fetchHits, OptionalText } from "./http.ts";
import type { SearchHit, SearchOptions, SearchSource } from "./source.ts";

export interface SearxngSettings {
  baseUrl: string;
  /** A SearXNG language code ("en", "de-CH"); absent: the instance's default. */
  language?: string;
  /** 0 off, 1 moderate, 2 strict. */
  safesearch?: 0 | 1 | 2;
}

const Result = Type.Object({ url: Type.String(), title: Type.String(), content: OptionalText, publishedDate: OptionalText });

export class SearxngSource implements SearchSource {
  readonly name = "searxng";

  constructor(private readonly settings: SearxngSettings) {}

  async search(query: string, options: SearchOptions): Promise<SearchHit[]> {
    if (!wantsHits(options)) return [];
    const hosts = whitelistHosts(activeScope(options.whitelist));
    const url = endpoint(this.settings.baseUrl, "search");
    url.searchParams.set("q", hosts.length === 1 ? `${query} site:${hosts[0]}` : query);
    url.searchParams.set("format", "json");
    url.searchParams.set("pageno", "1");
    url.searchParams.set("safesearch", String(this.settings.safesearch ?? 1));
    if (this.settings.language) url.searchParams.set("language", this.settings.language);
    return fetchHits(
      { provider: this.name, url, signal: options.signal, followRedirects: true },
      { item: Result, hit: (result) => hitFrom(result.url, result.title, result.content, result.publishedDate) },
      options,
    );
  }
}
