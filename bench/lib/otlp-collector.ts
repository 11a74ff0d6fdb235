/**
 * A loopback OTLP/HTTP collector for `bench/http.ts --observability`: takes
 * POST <prefix>/v1/traces as a collector does (200, an empty partial
 * success), counts the exports, bytes and spans under each prefix (one per
 * observed server, so each one's spans are told apart), and answers its
 * counts at GET /counts. Prints its port.
 *
 * A process of its own rather than a server in the bench's process: its CPU
 * is then read apart from the bench's and the servers' (from /proc), and a
 * burst of exports (hundreds of kilobytes a second under wrk) never delays
 * the bench's own timers, the metrics scrape among them. It does the least a
 * collector can: spans are counted in the JSON text (`"spanId":` occurs once
 * per span; a parent's id is `"parentSpanId"`), not parsed, so what it costs
 * the shared cores stays small beside the servers' own work.
 */
const counts = new Map<string, { exports: number; bytes: number; spans: number }>();
const MARK = '"spanId":';

function spansIn(text: string): number {
  let n = 0;
  for (let at = text.indexOf(MARK); at !== -1; at = text.indexOf(MARK, at + MARK.length)) n++;
  return n;
}

const otlpCollector = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (request.method === "GET" && path === "/counts") return Response.json(Object.fromEntries(counts));
    if (request.method !== "POST" || !path.endsWith("/v1/traces")) return new Response("not found\n", { status: 404 });
    const prefix = path.slice(0, -"/v1/traces".length) || "/";
    const body = await request.text();
    const slot = counts.get(prefix) ?? { exports: 0, bytes: 0, spans: 0 };
    slot.exports++;
    slot.bytes += Buffer.byteLength(body);
    // Protobuf (OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf) is counted in bytes only; the service exports JSON.
    if ((request.headers.get("content-type") ?? "").includes("json")) slot.spans += spansIn(body);
    counts.set(prefix, slot);
    return Response.json({ partialSuccess: {} });
  },
});
console.log(otlpCollector.port);
