/**
 * SearXNG's JSON API (`GET /search?format=json`, which an instance must
 * enable under `search.formats`). A metasearch engine has no domain filter
 * of its own, but most of its engines understand `site:`, so a whitelist of
 * one host becomes `site:host` in the query; every list is applied exactly
 * to the results afterwards.
 */
import { Type } from "@sinclair/typebox";
import { activeScope, finishHits, isoDate, plainText, whitelistHosts } from "./hits.ts";
import { endpoint, expectShape, fetchJson, fittingItems } from "./http.ts";
import type { SearchHit, SearchOptions, SearchSource } from "./source.ts";

export interface SearxngSettings {
  baseUrl: string;
  /** A SearXNG language code ("en", "de-CH"); absent: the instance's default. */
  language?: string;
  /** 0 off, 1 moderate, 2 strict. */
  safesearch?: 0 | 1 | 2;
}

const Answer = Type.Object({ results: Type.Array(Type.Unknown()) });
const Result = Type.Object({
  url: Type.String(),
  title: Type.String(),
  content: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  publishedDate: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

export class SearxngSource implements SearchSource {
  readonly name = "searxng";

  constructor(private readonly settings: SearxngSettings) {}

  async search(query: string, options: SearchOptions): Promise<SearchHit[]> {
    options.signal.throwIfAborted();
    if (options.limit <= 0) return [];
    const hosts = whitelistHosts(activeScope(options.whitelist));
    const url = endpoint(this.settings.baseUrl, "search");
    url.searchParams.set("q", hosts.length === 1 ? `${query} site:${hosts[0]}` : query);
    url.searchParams.set("format", "json");
    url.searchParams.set("pageno", "1");
    url.searchParams.set("safesearch", String(this.settings.safesearch ?? 1));
    if (this.settings.language) url.searchParams.set("language", this.settings.language);
    const body = await fetchJson({ provider: this.name, url, signal: options.signal, followRedirects: true });
    const answer = expectShape(this.name, Answer, body);
    const hits = fittingItems(this.name, Result, answer.results).map((result) => ({
      url: result.url,
      title: plainText(result.title),
      snippet: plainText(result.content),
      publishedAt: isoDate(result.publishedDate),
    }));
    return finishHits(hits, options);
  }
}
