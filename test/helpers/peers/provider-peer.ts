/**
 * What the five search-provider peers share: a real HTTP server on loopback
 * that records every request (with the parameters the provider would read),
 * waits an injected latency, injects faults, and otherwise answers scripted
 * or plausible results in its provider's wire format. Each provider file
 * supplies only its WireFormat: path, parameters, refusals, rendering.
 *
 * Latency and faults take a function per request, so a benchmark can draw
 * heavy-tailed latencies or fail a share of requests.
 */

/**
 * 500 and 429: errors; garbage: broken JSON; shape: JSON of another shape; html: a 200 HTML error page;
 * endless: a JSON body that never ends; hang: no headers, ever; an object: exactly that answer.
 */
export type PeerFault =
  | "500"
  | "429"
  | "garbage"
  | "shape"
  | "html"
  | "endless"
  | "hang"
  | { status: number; contentType: string; body: string };

/** A result as a test writes it; each peer renders it in its wire format. `raw` fields override the rendered item. */
export interface PeerHit {
  title: string;
  url: string;
  snippet: string;
  /** ISO 8601. */
  publishedAt?: string;
  raw?: Record<string, unknown>;
}

/** What the provider was asked, whatever its wire format: the bare query, how many, and the hosts it was told to keep to. */
export interface PeerAsk {
  query: string;
  count: number;
  hosts: string[];
}

export type PeerAnswers = Record<string, PeerHit[]> | ((ask: PeerAsk) => PeerHit[] | undefined);

export interface PeerRequest<P> {
  method: string;
  path: string;
  /** Path and query string as received (tests check no key ever rides in it). */
  target: string;
  /** Lowercase names. */
  headers: Record<string, string>;
  params: P;
  receivedAt: number;
  /** When the client went away before the answer was sent (an abort the peer observed), if it did. */
  abortedAt?: number;
}

export type PeerLatency<P> = number | ((request: PeerRequest<P>) => number);
export type PeerFaultRule<P> = PeerFault | null | ((request: PeerRequest<P>) => PeerFault | null);

export interface ProviderPeer<P> {
  url: string;
  requests: PeerRequest<P>[];
  /** The latest request (throws when there is none, so a test cannot assert on nothing). */
  last(): PeerRequest<P>;
  /** Milliseconds before answering, fixed or drawn per request. */
  setLatency(latency: PeerLatency<P>): void;
  /** A fault for the next `times` requests (default: until cleared with null). */
  setFault(fault: PeerFaultRule<P>, times?: number): void;
  /** Scripted results by bare query (a table or a function); unscripted queries get plausible results. */
  setAnswers(answers: PeerAnswers | null): void;
  /** Back to no latency, no fault, no script and no recorded requests. */
  reset(): void;
  stop(): void;
}

export interface WireFormat<P> {
  method: "GET" | "POST";
  path: string;
  /** Reads parameters leniently (query string, or the JSON body when there is one); checks belong in `refuse`. */
  params(url: URL, body: unknown): P;
  /** The provider's own refusal of this request (wrong key, bad parameter), or null. */
  refuse(request: PeerRequest<P>): Response | null;
  ask(params: P): PeerAsk;
  /** The 200 body for these results. */
  render(hits: PeerHit[], params: P, ask: PeerAsk): unknown;
}

const encoder = new TextEncoder();

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Resolves after `ms`, or earlier when the client goes away or the peer stops. */
function pause(ms: number, ...signals: AbortSignal[]): Promise<void> {
  return new Promise((resolve) => {
    const timer = ms === Infinity ? undefined : setTimeout(resolve, ms);
    for (const signal of signals) signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}

function faultResponse(fault: PeerFault, signals: AbortSignal[]): Response | Promise<Response> {
  if (typeof fault === "object") return new Response(fault.body, { status: fault.status, headers: { "content-type": fault.contentType } });
  switch (fault) {
    case "500":
      return Response.json({ error: "Internal Server Error" }, { status: 500 });
    case "429":
      return Response.json({ error: "Too Many Requests" }, { status: 429, headers: { "retry-after": "1" } });
    case "garbage":
      return new Response('{"results": [{"url": "https://exa\u0000\u00ff mple', { headers: { "content-type": "application/json" } });
    case "shape":
      return Response.json({ status: "ok", data: { items: "none" } });
    case "html":
      // A CDN's or a proxy's error page served with 200 happens; it must not be taken for an answer.
      return new Response(
        "<!doctype html><html><head><title>Service unavailable</title></head><body><h1>We'll be right back</h1></body></html>",
        {
          headers: { "content-type": "text/html; charset=utf-8" },
        },
      );
    case "endless": {
      let sent = false;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (signals.some((s) => s.aborted)) return controller.close();
          controller.enqueue(encoder.encode(sent ? '{"url":"https://example.com/more","title":"more"},' : '{"results":['));
          sent = true;
          await pause(20, ...signals);
        },
      });
      return new Response(body, { headers: { "content-type": "application/json" } });
    }
    case "hang":
      return pause(Infinity, ...signals).then(() => new Response(null, { status: 599 }));
  }
}

/** Results derived from the query: varied hosts (or the asked ones), numbered paths, dates, snippets that mention the query. */
export function plausibleHits(ask: PeerAsk): PeerHit[] {
  const slug =
    ask.query
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "result";
  const hosts = ask.hosts.length
    ? ask.hosts
    : ["en.example.org", "news.example.com", "docs.example.net", "blog.example.io", "forum.example.org"];
  return Array.from({ length: Math.min(Math.max(ask.count, 0), 100) }, (_, i) => {
    const host = hosts[i % hosts.length]!;
    return {
      title: `${ask.query} (${host}, ${i + 1})`,
      url: `https://${host}/${slug}/${i + 1}`,
      snippet: `What ${host} says about ${ask.query}: part ${i + 1} of a longer account.`,
      publishedAt: new Date(Date.UTC(2026, 0, 1 + i, 8)).toISOString(),
    };
  });
}

/** Splits a web-search query into its words and its `site:` hosts (dropping `-site:`, and the `( … OR … )` around sites). */
export function parseSiteOperators(q: string): { query: string; hosts: string[]; excluded: string[] } {
  const hosts: string[] = [];
  const excluded: string[] = [];
  const rest = q
    .replace(/(^|\s)-site:([^\s()]+)/g, (_, space: string, host: string) => (excluded.push(host), space))
    .replace(/(^|[\s(])site:([^\s()]+)/g, (_, lead: string, host: string) => (hosts.push(host), lead))
    .replace(/\(\s*(?:OR\s*)*\)/g, "");
  return { query: rest.replace(/\s+/g, " ").trim(), hosts, excluded };
}

export function startProviderPeer<P>(wire: WireFormat<P>): ProviderPeer<P> {
  const stopping = new AbortController();
  let latency: PeerLatency<P> = 0;
  let fault: PeerFaultRule<P> = null;
  let faultsLeft = Infinity;
  let answers: PeerAnswers | null = null;

  const peer: ProviderPeer<P> = {
    url: "",
    requests: [],
    last() {
      const request = peer.requests.at(-1);
      if (!request) throw new Error("the peer has received no request");
      return request;
    },
    setLatency: (next) => void (latency = next),
    setFault(next, times = Infinity) {
      fault = next;
      faultsLeft = times;
    },
    setAnswers: (next) => void (answers = next),
    reset() {
      peer.requests.length = 0;
      latency = 0;
      fault = null;
      answers = null;
    },
    stop() {
      stopping.abort();
      server.stop(true);
    },
  };

  const scripted = (ask: PeerAsk) => (typeof answers === "function" ? answers(ask) : answers?.[ask.query]);

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const text = request.method === "POST" ? await request.text() : "";
      const recorded: PeerRequest<P> = {
        method: request.method,
        path: url.pathname,
        target: url.pathname + url.search,
        headers: Object.fromEntries(request.headers),
        params: wire.params(url, text ? safeJson(text) : undefined),
        receivedAt: Date.now(),
      };
      peer.requests.push(recorded);
      request.signal.addEventListener("abort", () => void (recorded.abortedAt = Date.now()), { once: true });
      const signals = [request.signal, stopping.signal];
      const delay = typeof latency === "function" ? latency(recorded) : latency;
      if (delay > 0) await pause(delay, ...signals);
      const injected = faultsLeft > 0 ? (typeof fault === "function" ? fault(recorded) : fault) : null;
      if (injected) {
        faultsLeft--;
        return faultResponse(injected, signals);
      }
      if (request.method !== wire.method || url.pathname !== wire.path) return Response.json({ error: "Not Found" }, { status: 404 });
      const refusal = wire.refuse(recorded);
      if (refusal) return refusal;
      const ask = wire.ask(recorded.params);
      const hits = (scripted(ask) ?? plausibleHits(ask)).slice(0, Math.max(ask.count, 0));
      return Response.json(wire.render(hits, recorded.params, ask));
    },
  });
  peer.url = `http://127.0.0.1:${server.port}`;
  return peer;
}

/** `text` with HTML special characters escaped and the query's words wrapped in `open`/`close`, as search engines mark matches. */
export function markMatches(text: string, query: string, open: string, close: string): string {
  const escaped = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
  const words = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 2);
  if (!words.length) return escaped;
  const pattern = new RegExp(`\\b(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})\\b`, "giu");
  return escaped.replace(pattern, `${open}$1${close}`);
}
