/**
 * Wikipedia (any MediaWiki with the REST API), keyless: `GET
 * /w/rest.php/v1/search/page`. Wikimedia refuses clients without a
 * descriptive User-Agent, so one is always sent. Every hit lives under the
 * wiki's /wiki/ path, so domain lists decide before any call: a whitelist
 * that cannot include the wiki, or a blacklist that covers it, skips it.
 */
import { Type } from "@sinclair/typebox";
import { inScope, type SourceScope } from "../../contents/source-scope.ts";
import { activeScope, plainText } from "./hits.ts";
import { endpoint, fetchHits, OptionalText } from "./http.ts";
import type { SearchHit, SearchOptions, SearchSource } from "./source.ts";

export interface WikipediaSettings {
  baseUrl?: string;
  /** Wikimedia asks for a name and a way to reach the operator. */
  userAgent?: string;
}

const MAX_LIMIT = 100;
const DEFAULT_USER_AGENT = "agentic-search/0.1 (self-hosted agentic search API)";

const Answer = Type.Object({ pages: Type.Array(Type.Unknown()) });
const Page = Type.Object({
  key: Type.String({ minLength: 1 }),
  title: Type.String(),
  excerpt: OptionalText,
  description: OptionalText,
});

/** A page key as MediaWiki writes it in links (wfUrlencode): readable `/`, `:`, `(`, `)` and `,`. */
const encodeKey = (key: string) =>
  encodeURIComponent(key).replace(/%(3B|40|24|21|2A|28|29|2C|2F|7E|3A)/gi, (encoded) => decodeURIComponent(encoded));

/** Whether the caller's lists leave any of the wiki's articles (all under `root`) to find. */
function wikiInScope(root: string, whitelist: SourceScope | null, blacklist: SourceScope | null): boolean {
  if (blacklist && inScope(root, blacklist)) return false;
  if (!whitelist) return true;
  const lower = root.toLowerCase();
  return inScope(root, whitelist) || whitelist.prefixes.some((prefix) => prefix.startsWith(lower));
}

export class WikipediaSource implements SearchSource {
  readonly name = "wikipedia";
  private readonly baseUrl: string;
  private readonly userAgent: string;

  constructor(settings: WikipediaSettings = {}) {
    this.baseUrl = settings.baseUrl ?? "https://en.wikipedia.org";
    this.userAgent = settings.userAgent ?? DEFAULT_USER_AGENT;
  }

  async search(query: string, options: SearchOptions): Promise<SearchHit[]> {
    options.signal.throwIfAborted();
    const root = endpoint(this.baseUrl, "wiki/").href;
    if (options.limit <= 0 || !wikiInScope(root, activeScope(options.whitelist), activeScope(options.blacklist))) return [];
    const url = endpoint(this.baseUrl, "w/rest.php/v1/search/page");
    url.searchParams.set("q", query);
    url.searchParams.set("limit", String(Math.min(options.limit, MAX_LIMIT)));
    return fetchHits(
      { provider: this.name, url, signal: options.signal, headers: { "User-Agent": this.userAgent }, followRedirects: true },
      {
        envelope: Answer,
        items: (answer) => answer.pages,
        item: Page,
        hit: (page) => ({
          url: `${root}${encodeKey(page.key)}`,
          title: plainText(page.title),
          snippet: plainText(page.excerpt) || plainText(page.description),
          publishedAt: null,
        }),
      },
      options,
    );
  }
}
