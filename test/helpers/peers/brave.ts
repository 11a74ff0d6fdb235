/**
 * Brave Search's web endpoint on loopback: `GET /res/v1/web/search?q&count`
 * with `X-Subscription-Token`. A wrong or missing token gets Brave's 422
 * SUBSCRIPTION_TOKEN_INVALID; a query over 400 characters or 50 words, or a
 * count outside 1–20, gets its 422 VALIDATION. Descriptions mark matches
 * with <strong> and escape HTML; `web` is absent when nothing was found.
 */
import { markMatches, parseSiteOperators, startProviderPeer, type PeerHit, type ProviderPeer } from "./provider-peer.ts";

export interface BraveParams {
  q: string | null;
  count: number | null;
  /** The `site:` and `-site:` hosts in q, as Brave reads them. */
  sites: string[];
  excludedSites: string[];
}

export type BravePeer = ProviderPeer<BraveParams> & { token: string };

const braveError = (code: string, detail: string, meta: Record<string, unknown>) =>
  Response.json(
    { type: "ErrorResponse", error: { id: crypto.randomUUID(), status: 422, code, detail, meta }, time: Math.floor(Date.now() / 1000) },
    { status: 422 },
  );

function item(hit: PeerHit, query: string) {
  const url = new URL(hit.url);
  const date = hit.publishedAt ? new Date(hit.publishedAt) : null;
  return {
    title: hit.title,
    url: hit.url,
    is_source_local: false,
    is_source_both: false,
    description: markMatches(hit.snippet, query, "<strong>", "</strong>"),
    ...(date
      ? {
          page_age: date.toISOString().replace(/\.\d+Z$/, ""),
          age: date.toLocaleDateString("en-US", { month: "long", day: "numeric", year: "numeric", timeZone: "UTC" }),
        }
      : {}),
    profile: { name: url.hostname, url: hit.url, long_name: url.hostname, img: "" },
    language: "en",
    family_friendly: true,
    type: "search_result",
    subtype: "generic",
    is_live: false,
    meta_url: { scheme: url.protocol.replace(":", ""), netloc: url.host, hostname: url.hostname, favicon: "", path: url.pathname },
    ...hit.raw,
  };
}

export function startBravePeer(token = "brave-test-token"): BravePeer {
  const peer = startProviderPeer<BraveParams>({
    method: "GET",
    path: "/res/v1/web/search",
    params(url) {
      const q = url.searchParams.get("q");
      const count = url.searchParams.get("count");
      const { hosts, excluded } = parseSiteOperators(q ?? "");
      return { q, count: count === null ? null : Number(count), sites: hosts, excludedSites: excluded };
    },
    refuse({ headers, params }) {
      if (headers["x-subscription-token"] !== token) {
        return braveError("SUBSCRIPTION_TOKEN_INVALID", "The provided subscription token is invalid.", { component: "authentication" });
      }
      const q = params.q ?? "";
      const invalid = [
        !q.trim() || q.length > 400 || q.trim().split(/\s+/).length > 50
          ? { loc: ["query", "q"], msg: "Query must be 1-400 characters and at most 50 words" }
          : null,
        params.count !== null && !(Number.isInteger(params.count) && params.count >= 1 && params.count <= 20)
          ? { loc: ["query", "count"], msg: "Input should be less than or equal to 20" }
          : null,
      ].filter(Boolean);
      return invalid.length ? braveError("VALIDATION", "Unable to validate request parameter(s)", { errors: invalid }) : null;
    },
    ask(params) {
      const { query, hosts } = parseSiteOperators(params.q ?? "");
      return { query, count: params.count ?? 20, hosts };
    },
    render(hits, params, ask) {
      const query = {
        original: params.q,
        show_strict_warning: false,
        is_navigational: false,
        is_news_breaking: false,
        spellcheck_off: true,
        country: "us",
        bad_results: false,
        should_fallback: false,
        postal_code: "",
        city: "",
        header_country: "",
        more_results_available: hits.length > 0,
        state: "",
      };
      if (!hits.length) return { type: "search", query };
      return {
        type: "search",
        query,
        mixed: { type: "mixed", main: hits.map((_, index) => ({ type: "web", index, all: false })), top: [], side: [] },
        web: { type: "search", results: hits.map((hit) => item(hit, ask.query)), family_friendly: true },
      };
    },
  });
  return Object.assign(peer, { token });
}
