/**
 * Exa's search (`POST /search`, key in x-api-key), asking for highlights so
 * each hit comes with the passages Exa found relevant. A whitelist goes as
 * includeDomains; otherwise a blacklist goes as excludeDomains. Never both:
 * the two lists together have been refused by Exa's API, and the blacklist
 * is applied to the results here anyway.
 */
import { Type } from "@sinclair/typebox";
import { activeScope, blacklistHosts, hitFrom, wantsHits, whitelistHosts } from "./hits.ts";
import { endpoint, fetchHits, OptionalText } from "./http.ts";
import type { KeyedSettings, SearchHit, SearchOptions, SearchSource } from "./source.ts";

const MAX_RESULTS = 100;
const MAX_DOMAINS = 1_200;

const Result = Type.Object({
  url: Type.String(),
  title: OptionalText,
  publishedDate: OptionalText,
  text: OptionalText,
  highlights: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
});

export class ExaSource implements SearchSource {
  readonly name = "exa";
  private readonly baseUrl: string;

  constructor(private readonly settings: KeyedSettings) {
    this.baseUrl = settings.baseUrl ?? "https://api.exa.ai";
  }

  async search(query: string, options: SearchOptions): Promise<SearchHit[]> {
    if (!wantsHits(options)) return [];
    const include = whitelistHosts(activeScope(options.whitelist));
    const exclude = blacklistHosts(activeScope(options.blacklist)).slice(0, MAX_DOMAINS);
    const domains = include.length
      ? include.length <= MAX_DOMAINS
        ? { includeDomains: include }
        : {}
      : exclude.length
        ? { excludeDomains: exclude }
        : {};
    const json = { query, numResults: Math.min(options.limit, MAX_RESULTS), type: "auto", ...domains, contents: { highlights: true } };
    const headers = { "x-api-key": this.settings.apiKey };
    return fetchHits(
      { provider: this.name, url: endpoint(this.baseUrl, "search"), method: "POST", signal: options.signal, headers, json },
      {
        item: Result,
        // Exa's highlights are the passages it found relevant; the page's text is the fallback.
        hit: (result) =>
          hitFrom(result.url, result.title, result.highlights?.length ? result.highlights.join(" … ") : result.text, result.publishedDate),
      },
      options,
    );
  }
}
