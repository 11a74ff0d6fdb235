/**
 * Traces end to end: the real server, run as a process the way an operator
 * runs it, exports its spans over OTLP/HTTP to a collector on loopback when
 * OTEL_EXPORTER_OTLP_ENDPOINT points there, and nothing when it does not.
 * A search made with a caller's `traceparent` comes back as one trace: the
 * request's span under the caller's, the run under the request, a span per
 * stage under the run, a client span per provider call under the search
 * stage and per page read under the read stage; the providers get the trace
 * in a `traceparent` header; no span carries the prompt or the key. The
 * run's warnings (a provider failing) carry the request id and trace id.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { TEST_DATABASE_URL } from "../helpers/env.ts";
import { runCli, startServer, type ServerProcess } from "../helpers/process.ts";
import { startChatPeer, type ChatPeer } from "../helpers/peers/openai-compatible.ts";
import { article } from "../helpers/peers/pages.ts";
import { readTraces } from "../helpers/otlp-traces.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";

/** A span as the collector decoded it, flattened: ids as hex, attributes as plain values. */
interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  status: { code?: number; message?: string };
  /** Nanoseconds since the epoch, as decimal text. */
  startNs: string;
  endNs: string;
  raw: string;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };

/** Ids arrive as hex (OTLP/JSON's, and the protobuf decoder's); none at all is "". */
const hexId = (id: unknown): string => (typeof id === "string" ? id : "");

function plainValue(value: AnyValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.doubleValue ?? "";
}

/** A loopback OTLP/HTTP collector: keeps every span it is sent, and the content type each export came as. */
function startCollector() {
  const spans: CollectedSpan[] = [];
  let posts = 0;
  const types: string[] = [];
  /** The x-team header of each export (an operator's header, OTEL_EXPORTER_OTLP_HEADERS). */
  const teams: (string | null)[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (request.method !== "POST" || path !== "/v1/traces") return new Response("not found", { status: 404 });
      posts++;
      types.push(request.headers.get("content-type") ?? "");
      teams.push(request.headers.get("x-team"));
      const body = await readTraces(request);
      for (const resource of body.resourceSpans ?? [])
        for (const scope of resource.scopeSpans ?? [])
          for (const span of scope.spans ?? []) {
            const attributes: CollectedSpan["attributes"] = {};
            for (const { key, value } of (span.attributes as { key: string; value: AnyValue }[]) ?? []) attributes[key] = plainValue(value);
            spans.push({
              traceId: hexId(span.traceId),
              spanId: hexId(span.spanId),
              parentSpanId: hexId(span.parentSpanId),
              name: String(span.name),
              kind: Number(span.kind),
              attributes,
              status: (span.status as CollectedSpan["status"]) ?? {},
              startNs: String(span.startTimeUnixNano),
              endNs: String(span.endTimeUnixNano),
              raw: JSON.stringify(span),
            });
          }
      return Response.json({});
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    spans,
    posts: () => posts,
    types,
    teams,
    stop: () => server.stop(true),
  };
}

const PROMPT = "When will the river bridge open to traffic, asks quillfeather-9081?";
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN}-01`;

/** A site of its own, which records the `traceparent` each page request came with (or null). */
function startRecordingSite() {
  const traceparents: (string | null)[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      traceparents.push(request.headers.get("traceparent"));
      const page = new URL(request.url).pathname.slice(1);
      return new Response(
        article(`River bridge ${page}`, [
          `The river bridge opens to traffic in September 2027, says report ${page}.`,
          "Construction begins in March and takes eighteen months.",
        ]),
        { headers: { "content-type": "text/html; charset=utf-8" } },
      );
    },
  });
  return { host: `127.0.0.1:${server.port}`, traceparents, stop: () => server.stop(true) };
}

let world: SearchWorld;
let site: ReturnType<typeof startRecordingSite>;
let collector: ReturnType<typeof startCollector>;
let model: ChatPeer;
const dirs: string[] = [];
const databases: TestDatabase[] = [];

/** A data folder (and on the Postgres pass a fresh database), the search world's providers, and a key made with the CLI. */
async function environment(extra: Record<string, string>): Promise<{ env: Record<string, string>; key: string }> {
  const dir = mkdtempSync(join(tmpdir(), "as-tracing-"));
  dirs.push(dir);
  const env: Record<string, string> = {
    DATA_DIR: dir,
    LOG_LEVEL: "info",
    DRAIN_GRACE_MS: "0",
    ...world.env({ FETCH_ALLOW_HOSTS: site.host }),
    ...extra,
  };
  if (TEST_DATABASE_URL) {
    const database = await freshDatabase();
    databases.push(database);
    env.DATABASE_URL = database.url!;
  }
  const created = await runCli(["accounts", "create", "--name", "tracing", "--limit", "5000", "--json"], env);
  if (created.code !== 0) throw new Error(`accounts create failed: ${created.stderr}`);
  return { env, key: JSON.parse(created.stdout).api_key };
}

const search = (server: ServerProcess, key: string) =>
  fetch(`${server.url}/v1/search`, {
    method: "POST",
    headers: { "X-API-Key": key, "content-type": "application/json", traceparent: TRACEPARENT },
    body: JSON.stringify({ prompt: PROMPT }),
  });

async function until<T>(what: string, read: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/** The JSON log lines a server printed. */
function logLines(server: ServerProcess): Record<string, unknown>[] {
  return server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

beforeAll(() => {
  world = startSearchWorld({ spawned: true });
  site = startRecordingSite();
  // Both providers answer with this site's pages (each a path of its own: a page read per hit).
  const hits = ["one", "two", "three"].map((page) => ({
    title: `River bridge ${page}`,
    url: `http://${site.host}/${page}`,
    snippet: "The river bridge opens to traffic.",
  }));
  world.searxng.setAnswers(() => hits);
  world.brave.setAnswers(() => hits);
  collector = startCollector();
  model = startChatPeer();
});
afterAll(async () => {
  world.stop();
  site.stop();
  model.stop();
  collector.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  for (const database of databases) await database.drop();
});

describe("traces over OTLP/HTTP", () => {
  let server: ServerProcess;
  let key: string;
  let body: { response: string; info: { providers: { name: string; failed: number }[] } };
  let requestId: string | null;
  /** The `traceparent` each provider got during the search (later tests make calls of their own). */
  const sent: Record<string, (string | undefined)[]> = {};

  beforeAll(async () => {
    const made = await environment({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_SERVICE_NAME: "tracing-test",
      // One header sent, two left out (not valid HTTP, and no value): the spans still go.
      OTEL_EXPORTER_OTLP_HEADERS: "x-team=search,bad name=secret-value,broken",
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: model.apiKey,
      LLM_MODEL: "loopback-model",
    });
    key = made.key;
    server = await startServer(made.env);
    // Brave fails this search (HTTP 500, its hedge too): a provider span marked failed, and the run's warning logged.
    world.brave.setFault("500");
    const response = await search(server, key);
    expect(response.status).toBe(200);
    requestId = response.headers.get("x-request-id");
    body = (await response.json()) as typeof body;
    await until("the run's spans", () =>
      collector.spans.some((s) => s.name === "POST /v1/search") && collector.spans.some((s) => s.name === "research.answer")
        ? true
        : undefined,
    );
    for (const [name, peer] of [
      ["searxng", world.searxng],
      ["brave", world.brave],
    ] as const)
      sent[name] = peer.requests.map((r) => r.headers.traceparent);
  }, 60_000);
  afterAll(async () => {
    world.brave.setFault(null);
    await server?.stop();
  });

  const spansOfTrace = () => collector.spans.filter((s) => s.traceId === TRACE_ID);
  const one = (name: string) => {
    const found = spansOfTrace().filter((s) => s.name === name);
    expect(found).toHaveLength(1);
    return found[0]!;
  };

  test("the request's span continues the caller's trace, and the run, its stages, provider calls and page reads hang under it", () => {
    expect(body.info.providers.find((p) => p.name === "brave")!.failed).toBeGreaterThan(0);
    // OTLP/HTTP's default encoding, decoded by OTLP's own schema.
    expect(new Set(collector.types)).toEqual(new Set(["application/x-protobuf"]));
    const request = one("POST /v1/search");
    expect(request.parentSpanId).toBe(CALLER_SPAN);
    expect(request.kind).toBe(2); // SERVER
    expect(request.attributes["http.route"]).toBe("/v1/search");

    const run = one("research.run");
    expect(run.parentSpanId).toBe(request.spanId);
    expect(run.attributes["research.kind"]).toBe("search");
    expect(run.attributes["research.outcome"]).toBe("ok");
    expect(typeof run.attributes["research.queue.wait_ms"]).toBe("number");

    const stages = ["research.plan", "research.search", "research.read", "research.rank", "research.answer"].map(one);
    for (const stage of stages) expect(stage.parentSpanId).toBe(run.spanId);
    // No image in this search: no image stage.
    expect(spansOfTrace().some((s) => s.name === "research.image")).toBe(false);

    const [, searching, reading] = stages;
    const calls = spansOfTrace().filter((s) => s.name === "provider.search");
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const call of calls) {
      expect(call.parentSpanId).toBe(searching!.spanId);
      expect(call.kind).toBe(3); // CLIENT
    }
    const byProvider = (name: string) => calls.filter((c) => c.attributes["search.provider"] === name);
    const searxng = byProvider("searxng");
    expect(searxng.length).toBeGreaterThan(0);
    expect(searxng.every((c) => c.attributes["search.outcome"] === "ok")).toBe(true);
    expect(searxng.some((c) => Number(c.attributes["search.results"]) > 0)).toBe(true);
    const brave = byProvider("brave");
    expect(brave.length).toBeGreaterThan(0);
    for (const call of brave) {
      expect(call.attributes["search.outcome"]).toBe("failed");
      expect(call.attributes["error.type"]).toBe("http");
      expect(call.attributes["http.response.status_code"]).toBe(500);
      expect(call.status.code).toBe(2); // ERROR
    }

    const reads = spansOfTrace().filter((s) => s.name === "page.read");
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) {
      expect(read.parentSpanId).toBe(reading!.spanId);
      expect(read.attributes["server.address"]).toBe("127.0.0.1");
      expect(["fetched", "cached", "failed", "cut"]).toContain(read.attributes["page.outcome"] as string);
    }
    expect(reads.some((r) => r.attributes["page.outcome"] === "fetched" && Number(r.attributes["page.content_chars"]) > 0)).toBe(true);
  });

  test("no span carries the prompt, a word of it, the key or a page's path", () => {
    const everything = collector.spans.map((s) => s.raw).join("\n");
    expect(everything).not.toContain(PROMPT);
    expect(everything).not.toContain("quillfeather");
    expect(everything).not.toContain(key);
    expect(everything).not.toContain("brave-test-token");
    expect(everything).not.toContain(model.apiKey);
    expect(everything).not.toContain("bridge");
  });

  test("the providers were sent the trace in a traceparent header, a span of the same trace", () => {
    for (const headers of [sent.searxng!, sent.brave!]) {
      expect(headers.length).toBeGreaterThan(0);
      for (const header of headers) expect(header).toMatch(new RegExp(`^00-${TRACE_ID}-[\\da-f]{16}-01$`));
    }
    // Each carries the span id of a provider.search span: the provider's spans join under that call.
    const callIds = new Set(collector.spans.filter((s) => s.name === "provider.search").map((s) => s.spanId));
    for (const header of [...sent.searxng!, ...sent.brave!]) expect(callIds.has(header!.split("-")[2]!)).toBe(true);
  });

  test("the model's API was sent the trace of the stage that called it: planning, then answering", () => {
    const planning = one("research.plan");
    const answering = one("research.answer");
    const sentToModel = model.traceparents.slice(0, 2);
    expect(sentToModel).toEqual([`00-${TRACE_ID}-${planning.spanId}-01`, `00-${TRACE_ID}-${answering.spanId}-01`]);
  });

  test("pages are not sent the trace", () => {
    expect(site.traceparents.length).toBeGreaterThan(0);
    expect(site.traceparents.every((header) => header === null)).toBe(true);
  });

  test("a task's run is a trace of its own: task.run, with the research run and its stages under it", async () => {
    const created = await fetch(`${server.url}/v1/tasks`, {
      method: "POST",
      headers: { "X-API-Key": key, "content-type": "application/json" },
      body: JSON.stringify({ prompt: PROMPT }),
    });
    expect(created.status).toBe(202);
    const { id } = (await created.json()) as { id: string };
    const task = await until(
      "the task's span",
      () => collector.spans.find((s) => s.name === "task.run" && s.attributes["task.outcome"] === "succeeded"),
      30_000,
    );
    expect(task.parentSpanId).toBe("");
    expect(task.attributes["task.kind"]).toBe("search");
    expect(task.traceId).not.toBe(TRACE_ID);
    const run = await until("the task's run span", () =>
      collector.spans.find((s) => s.name === "research.run" && s.traceId === task.traceId),
    );
    expect(run.parentSpanId).toBe(task.spanId);
    const stages = collector.spans.filter((s) => s.traceId === task.traceId && s.parentSpanId === run.spanId).map((s) => s.name);
    expect(stages.sort()).toEqual(["research.answer", "research.plan", "research.rank", "research.read", "research.search"]);
    // The task's own log line joins its trace.
    const line = logLines(server).find((l) => l.msg === "task" && l.task_id === id);
    expect(line?.trace_id).toBe(task.traceId);
    expect(collector.spans.map((s) => s.raw).join("\n")).not.toContain("quillfeather");
  }, 60_000);

  test("the health probes are not traced; a refusal is, its span made at its end and timed from its arrival", async () => {
    const traced = (trace: string) => ({ traceparent: `00-${trace}-${CALLER_SPAN}-01` });
    const PROBE_TRACE = "5a0000000000000000000000000000a5";
    const REFUSED_TRACE = "6b0000000000000000000000000000b6";
    for (const path of ["/healthz", "/readyz"])
      expect((await fetch(`${server.url}${path}`, { headers: traced(PROBE_TRACE) })).status).toBe(200);
    const before = Date.now();
    const refused = await fetch(`${server.url}/v1/account`, { headers: traced(REFUSED_TRACE) });
    const after = Date.now();
    expect(refused.status).toBe(401);
    const span = await until("the refusal's span", () => collector.spans.find((s) => s.traceId === REFUSED_TRACE));
    expect(span.name).toBe("GET /v1/account");
    expect(span.parentSpanId).toBe(CALLER_SPAN);
    expect(span.attributes["http.response.status_code"]).toBe(401);
    const startMs = Number(BigInt(span.startNs) / 1_000_000n);
    const endMs = Number(BigInt(span.endNs) / 1_000_000n);
    expect(startMs).toBeGreaterThanOrEqual(before - 1);
    expect(endMs).toBeGreaterThanOrEqual(startMs);
    expect(endMs).toBeLessThanOrEqual(after + 1);
    // The refusal's batch has left, and the probes' requests came before it: none of theirs was in any batch.
    expect(collector.spans.filter((s) => s.traceId === PROBE_TRACE)).toEqual([]);
    // Each probe still logs the caller's trace id.
    expect(logLines(server).filter((l) => l.msg === "request" && l.trace_id === PROBE_TRACE)).toHaveLength(2);
  });

  test("the request's log line and the run's warning carry the request id and the trace id", () => {
    const lines = logLines(server);
    const requestLine = lines.find((l) => l.msg === "request" && l.request_id === requestId);
    expect(requestLine?.trace_id).toBe(TRACE_ID);
    const warning = lines.find((l) => l.msg === "search provider failed" && l.provider === "brave");
    expect(warning).toBeDefined();
    expect(warning!.request_id).toBe(requestId);
    expect(warning!.trace_id).toBe(TRACE_ID);
  });

  test("collector headers that are not name=value and valid HTTP are left out, named once at start-up (never a value)", () => {
    const left = logLines(server).filter((l) => l.msg === "OTLP headers left out: each must be name=value and valid HTTP");
    expect(left).toHaveLength(1);
    expect(left[0]!.headers).toEqual(["bad name", "broken"]);
    expect(server.output()).not.toContain("secret-value");
    expect(collector.teams.length).toBeGreaterThan(0);
    expect(new Set(collector.teams)).toEqual(new Set(["search"]));
  });
});

describe("without OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  test("nothing is exported, and the request's log line still carries the caller's trace id", async () => {
    const sent = collector.posts();
    const spans = collector.spans.length;
    const made = await environment({});
    const server = await startServer(made.env);
    try {
      const before = world.searxng.requests.length;
      const response = await search(server, made.key);
      expect(response.status).toBe(200);
      const requestId = response.headers.get("x-request-id");
      await response.json();
      const line = await until("the request line", () => logLines(server).find((l) => l.msg === "request" && l.request_id === requestId));
      expect(line.trace_id).toBe(TRACE_ID);
      // Untraced: no traceparent is made up for the providers.
      const asked = world.searxng.requests.slice(before);
      expect(asked.length).toBeGreaterThan(0);
      for (const request of asked) expect(request.headers.traceparent).toBeUndefined();
    } finally {
      await server.stop();
    }
    // A batch would have left within its 1 s delay, and shutdown flushes: the collector heard nothing.
    await Bun.sleep(1_500);
    expect(collector.posts()).toBe(sent);
    expect(collector.spans.length).toBe(spans);
  }, 60_000);
});
