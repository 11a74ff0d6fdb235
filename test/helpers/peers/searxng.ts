/**
 * A SearXNG instance on loopback: `GET /search?q=…&format=json&pageno&safesearch&language`.
 * SearXNG has no key; what refuses a client is an instance whose settings do
 * not enable the JSON format (a 403 HTML page), as many public ones do.
 * Contents are plain text; dates come as SearXNG writes them: ISO 8601
 * without a zone.
 */
import { parseSiteOperators, startProviderPeer, type PeerHit, type ProviderPeer } from "./provider-peer.ts";

export interface SearxngParams {
  q: string | null;
  format: string | null;
  pageno: string | null;
  safesearch: string | null;
  language: string | null;
}

export type SearxngPeer = ProviderPeer<SearxngParams>;

const RESULTS_PER_PAGE = 20;
const ENGINES = ["duckduckgo", "brave", "wikipedia", "startpage"];

const htmlPage = (status: number, title: string) =>
  new Response(`<!DOCTYPE html><html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`, {
    status,
    headers: { "content-type": "text/html; charset=utf-8" },
  });

function item(hit: PeerHit, index: number) {
  const url = new URL(hit.url);
  const engine = ENGINES[index % ENGINES.length]!;
  return {
    url: hit.url,
    title: hit.title,
    content: hit.snippet,
    publishedDate: hit.publishedAt ? hit.publishedAt.replace(/(\.\d+)?Z$/, "") : null,
    thumbnail: "",
    engine,
    template: "default.html",
    parsed_url: [url.protocol.replace(":", ""), url.host, url.pathname, "", url.search.slice(1), ""],
    img_src: "",
    priority: "",
    engines: [engine],
    positions: [index + 1],
    score: Math.round((1 / (index + 1)) * 1000) / 1000,
    category: "general",
    ...hit.raw,
  };
}

export function startSearxngPeer(options: { formats?: string[] } = {}): SearxngPeer {
  const formats = options.formats ?? ["html", "json"];
  return startProviderPeer<SearxngParams>({
    method: "GET",
    path: "/search",
    params: (url) => ({
      q: url.searchParams.get("q"),
      format: url.searchParams.get("format"),
      pageno: url.searchParams.get("pageno"),
      safesearch: url.searchParams.get("safesearch"),
      language: url.searchParams.get("language"),
    }),
    refuse({ params }) {
      const format = params.format ?? "html";
      if (!formats.includes(format)) return htmlPage(403, "403 Forbidden");
      if (!params.q?.trim()) return htmlPage(400, "400 Bad Request");
      if (format !== "json") return htmlPage(200, `${params.q} - SearXNG`);
      return null;
    },
    ask(params) {
      const { query, hosts } = parseSiteOperators(params.q ?? "");
      return { query, count: RESULTS_PER_PAGE, hosts };
    },
    render: (hits, params) => ({
      query: params.q,
      number_of_results: 0,
      results: hits.map(item),
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [],
      unresponsive_engines: [],
    }),
  });
}
