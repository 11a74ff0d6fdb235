/**
 * What request-context records of each request once it is answered: with
 * tracing on, a span named for its route template with the operator's
 * attributes, failed for a 5xx, whose trace id the log line carries; with
 * tracing off, no span, and the log line carries the trace id of a valid
 * `traceparent` only; with metrics on, the request counted by route template.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { createLogger } from "../../src/log.ts";
import { enableMetrics, renderMetrics } from "../../src/observe/metrics.ts";
import { samplerFrom } from "../../src/observe/sampler.ts";
import { recordingSpans, type SpanRecord } from "../../src/observe/spans.ts";
import { useTracer } from "../../src/observe/trace.ts";
import { requestContext } from "../../src/http/request-context.ts";
import { ServiceError } from "../../src/errors.ts";

const logs: string[] = [];
const app = new Elysia()
  .use(requestContext(createLogger({ level: "info", sink: (line) => logs.push(line) })))
  .get("/items/:id", ({ params }) => ({ id: params.id }))
  .get("/boom", () => {
    throw new Error("broken");
  })
  .get("/upstream", () => {
    throw new ServiceError("service_unavailable", "the search provider failed", { cause: "provider said: 502 Bad Gateway" });
  });
app.listen({ port: 0, hostname: "127.0.0.1" });
const base = `http://127.0.0.1:${app.server!.port}`;

const finished: SpanRecord[] = [];

afterAll(async () => {
  useTracer(null);
  await app.stop(true);
});

/** The request log line of the response with this request id (written once the response is sent). */
async function logLine(requestId: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100; i++) {
    const line = logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === "request" && l.request_id === requestId);
    if (line) return line;
    await Bun.sleep(10);
  }
  throw new Error(`no request line for ${requestId}`);
}

describe("request context", () => {
  test("tracing on: a span per request, named for its route template, with the log line's trace id", async () => {
    useTracer(recordingSpans(samplerFrom({}), (span) => finished.push(span)));
    try {
      const response = await fetch(`${base}/items/42?secret=1`);
      expect(response.status).toBe(200);
      const requestId = response.headers.get("x-request-id")!;
      const line = await logLine(requestId); // written after the span ends
      const span = finished.find((s) => s.attributes["request.id"] === requestId)!;
      expect(span.name).toBe("GET /items/:id");
      expect(span.attributes).toMatchObject({ "http.route": "/items/:id", "http.response.status_code": 200, "http.request.method": "GET" });
      expect(JSON.stringify(span.attributes)).not.toContain("secret");
      expect(line.trace_id).toBe(span.traceId);

      const failed = await fetch(`${base}/boom`);
      expect(failed.status).toBe(500);
      await logLine(failed.headers.get("x-request-id")!); // written after the span ends
      const failedSpan = finished.find((s) => s.attributes["request.id"] === failed.headers.get("x-request-id"))!;
      expect(failedSpan.failure).toBe("internal_error");
      expect(failedSpan.attributes["http.response.status_code"]).toBe(500);
    } finally {
      useTracer(null);
    }
  });

  test("a failed request's warning and an unhandled error's line carry its request id and trace id", async () => {
    const traceId = "5bf92f3577b34da6a3ce929d0e0e4736";
    const headers = { traceparent: `00-${traceId}-00f067aa0ba902b7-01` };
    const lineOf = (msg: string, requestId: string) =>
      logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === msg && l.request_id === requestId);
    const refused = await fetch(`${base}/upstream`, { headers });
    expect(refused.status).toBe(503);
    await logLine(refused.headers.get("x-request-id")!);
    expect(lineOf("request failed", refused.headers.get("x-request-id")!)).toMatchObject({
      code: "service_unavailable",
      trace_id: traceId,
    });
    const broken = await fetch(`${base}/boom`, { headers });
    expect(broken.status).toBe(500);
    await logLine(broken.headers.get("x-request-id")!);
    expect(lineOf("unhandled error", broken.headers.get("x-request-id")!)).toMatchObject({ trace_id: traceId });
  });

  test("tracing off: no span; the log line carries the trace id of a valid traceparent only", async () => {
    finished.length = 0;
    const plain = await fetch(`${base}/items/1`);
    expect((await logLine(plain.headers.get("x-request-id")!)).trace_id).toBeUndefined();
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const traced = await fetch(`${base}/items/2`, { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    expect((await logLine(traced.headers.get("x-request-id")!)).trace_id).toBe(traceId);
    const invalid = await fetch(`${base}/items/3`, { headers: { traceparent: `00-${"0".repeat(32)}-00f067aa0ba902b7-01` } });
    expect((await logLine(invalid.headers.get("x-request-id")!)).trace_id).toBeUndefined();
    expect(finished).toEqual([]);
  });

  test("metrics on: the request is counted and timed by route template, method and status class", async () => {
    enableMetrics();
    // Counted once the response is sent, with the log line written after it: wait for that line.
    for (const id of [7, 8]) await logLine((await fetch(`${base}/items/${id}`)).headers.get("x-request-id")!);
    const { text } = await renderMetrics();
    const count = /^agentic_search_http_requests_total\{route="\/items\/:id",method="GET",status_class="2xx"\} (\d+)$/m.exec(text);
    expect(Number(count?.[1])).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(
      /^agentic_search_http_request_duration_seconds_count\{route="\/items\/:id",method="GET",status_class="2xx"\} \d+$/m,
    );
    expect(text).not.toContain('route="/items/7"');
  });
});
