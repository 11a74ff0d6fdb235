/**
 * Exa's search on loopback: `POST /search` with a JSON body and the key in
 * `x-api-key` (or `Authorization: Bearer`, which Exa also takes). A wrong key
 * gets a 401 in Exa's error shape `{requestId, error, tag}`; numResults
 * outside 1–100 gets its 400. Highlights and text are returned only when
 * `contents` asks for them, as Exa does.
 */
import { startProviderPeer, type PeerHit, type ProviderPeer } from "./provider-peer.ts";

export interface ExaParams {
  query: unknown;
  numResults: unknown;
  type: unknown;
  includeDomains: unknown;
  excludeDomains: unknown;
  contents: unknown;
  /** The whole body as sent. */
  body: Record<string, unknown>;
}

export type ExaPeer = ProviderPeer<ExaParams> & { apiKey: string };

const exaError = (status: number, error: string, tag: string) =>
  Response.json({ requestId: crypto.randomUUID().replace(/-/g, ""), error, tag }, { status });

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []);

function item(hit: PeerHit, index: number, contents: Record<string, unknown>) {
  return {
    id: hit.url,
    title: hit.title,
    url: hit.url,
    publishedDate: hit.publishedAt ?? null,
    author: null,
    score: Math.round((0.5 - index * 0.01) * 1000) / 1000,
    ...(contents.text ? { text: `${hit.title}\n\n${hit.snippet}` } : {}),
    ...(contents.highlights ? { highlights: [hit.snippet], highlightScores: [0.42] } : {}),
    ...hit.raw,
  };
}

export function startExaPeer(apiKey = "exa-test-key"): ExaPeer {
  const peer = startProviderPeer<ExaParams>({
    method: "POST",
    path: "/search",
    params(_url, body) {
      const b = body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
      return {
        query: b.query,
        numResults: b.numResults,
        type: b.type,
        includeDomains: b.includeDomains,
        excludeDomains: b.excludeDomains,
        contents: b.contents,
        body: b,
      };
    },
    refuse({ headers, params }) {
      if (headers["x-api-key"] !== apiKey && headers.authorization !== `Bearer ${apiKey}`)
        return exaError(401, "Invalid API key", "INVALID_API_KEY");
      if (typeof params.query !== "string" || !params.query.trim()) return exaError(400, "query is required", "INVALID_REQUEST_BODY");
      const n = params.numResults;
      if (n !== undefined && !(Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 100))
        return exaError(400, "numResults must be between 1 and 100", "INVALID_NUM_RESULTS");
      if (params.type !== undefined && !["auto", "neural", "fast", "instant", "deep", "deep-reasoning"].includes(params.type as string)) {
        return exaError(400, "Invalid search type", "INVALID_REQUEST_BODY");
      }
      return null;
    },
    ask: (params) => ({
      query: String(params.query ?? ""),
      count: typeof params.numResults === "number" ? params.numResults : 10,
      hosts: strings(params.includeDomains),
    }),
    render(hits, params) {
      const contents = params.contents && typeof params.contents === "object" ? (params.contents as Record<string, unknown>) : {};
      return {
        requestId: crypto.randomUUID().replace(/-/g, ""),
        resolvedSearchType: "neural",
        results: hits.map((hit, i) => item(hit, i, contents)),
        searchType: "neural",
        costDollars: { total: 0.005 },
      };
    },
  });
  return Object.assign(peer, { apiKey });
}
