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
 * collector can: spans are counted, not decoded: in protobuf by walking the
 * fields down to ResourceSpans(1) > ScopeSpans(2) > Span(2) without reading
 * a span, in JSON by counting `"spanId":` (a parent's id is
 * `"parentSpanId"`), so what it costs the shared cores stays small beside
 * the servers' own work.
 */
const counts = new Map<string, { exports: number; bytes: number; spans: number }>();
const MARK = '"spanId":';

function spansInJson(text: string): number {
  let n = 0;
  for (let at = text.indexOf(MARK); at !== -1; at = text.indexOf(MARK, at + MARK.length)) n++;
  return n;
}

/** Each field of a protobuf message in bytes[from, to): its number and, for a length-delimited one, where its body is. */
function* fields(bytes: Uint8Array, from: number, to: number): Generator<{ field: number; start: number; end: number }> {
  let at = from;
  const varint = () => {
    let value = 0;
    for (let shift = 1; ; shift *= 128) {
      const byte = bytes[at++]!;
      value += (byte & 127) * shift;
      if (byte < 128) return value;
    }
  };
  while (at < to) {
    const tag = varint();
    const wire = tag & 7;
    if (wire === 0) varint();
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const length = varint();
      yield { field: Math.floor(tag / 8), start: at, end: at + length };
      at += length;
    } else throw new Error(`wire type ${wire}`);
  }
}

function spansInProtobuf(bytes: Uint8Array): number {
  let n = 0;
  for (const resource of fields(bytes, 0, bytes.length))
    if (resource.field === 1)
      for (const scope of fields(bytes, resource.start, resource.end))
        if (scope.field === 2) for (const span of fields(bytes, scope.start, scope.end)) if (span.field === 2) n++;
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
    const body = new Uint8Array(await request.arrayBuffer());
    const slot = counts.get(prefix) ?? { exports: 0, bytes: 0, spans: 0 };
    slot.exports++;
    slot.bytes += body.length;
    slot.spans += (request.headers.get("content-type") ?? "").includes("json")
      ? spansInJson(new TextDecoder().decode(body))
      : spansInProtobuf(body);
    counts.set(prefix, slot);
    return Response.json({ partialSuccess: {} });
  },
});
console.log(otlpCollector.port);
