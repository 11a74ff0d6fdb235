/**
 * Tavily's search on loopback: `POST /search` with a JSON body and
 * `Authorization: Bearer <key>` (the older `api_key` body field is accepted
 * too, as Tavily does). A wrong key gets Tavily's 401 `{"detail": {"error": …}}`;
 * a missing query or max_results outside 0–20 gets its 400.
 */
import { startProviderPeer, type PeerHit, type ProviderPeer } from "./provider-peer.ts";

export interface TavilyParams {
  query: unknown;
  max_results: unknown;
  include_domains: unknown;
  exclude_domains: unknown;
  search_depth: unknown;
  /** The whole body as sent. */
  body: Record<string, unknown>;
}

export type TavilyPeer = ProviderPeer<TavilyParams> & { apiKey: string };

const tavilyError = (status: number, error: string) => Response.json({ detail: { error } }, { status });

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []);

function item(hit: PeerHit, index: number) {
  return {
    url: hit.url,
    title: hit.title,
    content: hit.snippet,
    score: Math.round((0.9 - index * 0.03) * 1000) / 1000,
    raw_content: null,
    ...(hit.publishedAt ? { published_date: new Date(hit.publishedAt).toUTCString() } : {}),
    ...hit.raw,
  };
}

export function startTavilyPeer(apiKey = "tvly-test-key"): TavilyPeer {
  const peer = startProviderPeer<TavilyParams>({
    method: "POST",
    path: "/search",
    params(_url, body) {
      const b = body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
      return {
        query: b.query,
        max_results: b.max_results,
        include_domains: b.include_domains,
        exclude_domains: b.exclude_domains,
        search_depth: b.search_depth,
        body: b,
      };
    },
    refuse({ headers, params }) {
      if (headers.authorization !== `Bearer ${apiKey}` && params.body.api_key !== apiKey)
        return tavilyError(401, "Unauthorized: missing or invalid API key.");
      if (typeof params.query !== "string" || !params.query.trim()) return tavilyError(400, "Query is missing.");
      const max = params.max_results;
      if (max !== undefined && !(Number.isInteger(max) && (max as number) >= 0 && (max as number) <= 20))
        return tavilyError(400, "max_results must be between 0 and 20.");
      if (params.search_depth !== undefined && !["basic", "advanced", "fast", "ultra-fast"].includes(params.search_depth as string)) {
        return tavilyError(400, "Invalid search depth. Must be 'basic', 'advanced', 'fast' or 'ultra-fast'.");
      }
      return null;
    },
    ask: (params) => ({
      query: String(params.query ?? ""),
      count: typeof params.max_results === "number" ? params.max_results : 5,
      hosts: strings(params.include_domains),
    }),
    render: (hits, params) => ({
      query: params.query,
      follow_up_questions: null,
      answer: null,
      images: [],
      results: hits.map(item),
      response_time: 0.84,
      request_id: crypto.randomUUID(),
    }),
  });
  return Object.assign(peer, { apiKey });
}
