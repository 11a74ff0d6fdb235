/**
 * Brave Search's web endpoint (`GET /res/v1/web/search`, key in
 * X-Subscription-Token). Brave has no domain parameters but honours `site:`,
 * `-site:` and `OR` in the query, which it caps at 400 characters and 50
 * words: the whitelist is added whole or not at all (a partial one would
 * silently narrow it), then as many blacklisted hosts as still fit.
 * Descriptions carry `<strong>` around matched words and HTML entities.
 */
import { Type } from "@sinclair/typebox";
import type { SourceScope } from "../../contents/source-scope.ts";
import { activeScope, blacklistHosts, hitFrom, wantsHits, whitelistHosts } from "./hits.ts";
import { endpoint, fetchHits } from "./http.ts";
import type { KeyedSettings, SearchHit, SearchOptions, SearchSource } from "./source.ts";

const MAX_COUNT = 20;
const MAX_QUERY_CHARS = 400;
const MAX_QUERY_WORDS = 50;

const Answer = Type.Object({
  type: Type.Literal("search"),
  // Brave leaves `web` out when it has no web results.
  web: Type.Optional(Type.Object({ results: Type.Array(Type.Unknown()) })),
});
const Result = Type.Object({
  url: Type.String(),
  title: Type.String(),
  description: Type.Optional(Type.String()),
  page_age: Type.Optional(Type.String()),
  age: Type.Optional(Type.String()),
});

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
const fits = (text: string) => text.length <= MAX_QUERY_CHARS && words(text) <= MAX_QUERY_WORDS;
const within = (host: string, parents: string[]) => parents.some((parent) => host === parent || host.endsWith(`.${parent}`));

/** The query with the domain lists as operators, never longer than Brave accepts. */
export function braveQuery(query: string, whitelist: SourceScope | null, blacklist: SourceScope | null): string {
  let q = query.trim().split(/\s+/).slice(0, MAX_QUERY_WORDS).join(" ").slice(0, MAX_QUERY_CHARS);
  const allowed = whitelistHosts(whitelist);
  if (allowed.length) {
    const clause = allowed.length === 1 ? `site:${allowed[0]}` : `(${allowed.map((host) => `site:${host}`).join(" OR ")})`;
    if (fits(`${q} ${clause}`)) q = `${q} ${clause}`;
  }
  for (const host of blacklistHosts(blacklist)) {
    // Under a whitelist, only excluding a part of it narrows anything.
    if (allowed.length && !within(host, allowed)) continue;
    if (!fits(`${q} -site:${host}`)) break;
    q = `${q} -site:${host}`;
  }
  return q;
}

export class BraveSource implements SearchSource {
  readonly name = "brave";
  private readonly baseUrl: string;

  constructor(private readonly settings: KeyedSettings) {
    this.baseUrl = settings.baseUrl ?? "https://api.search.brave.com";
  }

  async search(query: string, options: SearchOptions): Promise<SearchHit[]> {
    if (!wantsHits(options)) return [];
    const url = endpoint(this.baseUrl, "res/v1/web/search");
    url.searchParams.set("q", braveQuery(query, activeScope(options.whitelist), activeScope(options.blacklist)));
    url.searchParams.set("count", String(Math.min(options.limit, MAX_COUNT)));
    const headers = { "X-Subscription-Token": this.settings.apiKey, Accept: "application/json" };
    return fetchHits(
      { provider: this.name, url, signal: options.signal, headers },
      {
        envelope: Answer,
        items: (answer) => answer.web?.results ?? [],
        item: Result,
        // page_age is a date; age is often relative ("2 days ago") and then not one.
        hit: (result) => hitFrom(result.url, result.title, result.description, result.page_age, result.age),
      },
      options,
    );
  }
}
