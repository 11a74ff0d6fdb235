/**
 * A MediaWiki REST API on loopback: `GET /w/rest.php/v1/search/page?q&limit`.
 * Keyless; what Wikimedia refuses is a client without a descriptive
 * User-Agent (a 403 naming its policy), and a limit outside 1–100 (a 400 in
 * the REST API's error shape). Excerpts mark matches with
 * `<span class="searchmatch">`. A hit's URL is not sent: clients build it
 * from the page key, which comes from the title unless `raw.key` says otherwise.
 */
import { markMatches, startProviderPeer, type PeerHit, type ProviderPeer } from "./provider-peer.ts";

export interface WikipediaParams {
  q: string | null;
  limit: number | null;
}

export type WikipediaPeer = ProviderPeer<WikipediaParams>;

/** User agents Wikimedia treats as anonymous library defaults. */
const GENERIC_AGENT = /^$|^(bun|node|undici|curl|wget|python-requests|python-urllib|go-http-client|axios|java)\b/i;

const restError = (message: string) =>
  Response.json({ messageTranslations: { en: message }, httpCode: 400, httpReason: "Bad Request" }, { status: 400 });

function page(hit: PeerHit, index: number, query: string) {
  return {
    id: 10_000 + index,
    key: hit.title.replace(/ /g, "_"),
    title: hit.title,
    excerpt: markMatches(hit.snippet, query, '<span class="searchmatch">', "</span>"),
    matched_title: null,
    description: null,
    thumbnail: null,
    ...hit.raw,
  };
}

export function startWikipediaPeer(): WikipediaPeer {
  return startProviderPeer<WikipediaParams>({
    method: "GET",
    path: "/w/rest.php/v1/search/page",
    params(url) {
      const limit = url.searchParams.get("limit");
      return { q: url.searchParams.get("q"), limit: limit === null ? null : Number(limit) };
    },
    refuse({ headers, params }) {
      if (GENERIC_AGENT.test(headers["user-agent"] ?? "")) {
        return new Response(
          "Please set a user-agent and respect our robot policy https://w.wiki/4wJS. See also https://phabricator.wikimedia.org/T400119.\n",
          {
            status: 403,
            headers: { "content-type": "text/plain" },
          },
        );
      }
      if (!params.q) return restError('Parameter "q" is required.');
      if (params.limit !== null && !(Number.isInteger(params.limit) && params.limit >= 1 && params.limit <= 100)) {
        return restError(`Invalid value "${params.limit}" for parameter "limit": must be between 1 and 100.`);
      }
      return null;
    },
    ask: (params) => ({ query: params.q ?? "", count: params.limit ?? 10, hosts: [] }),
    render: (hits, params) => ({ pages: hits.map((hit, i) => page(hit, i, params.q ?? "")) }),
  });
}
