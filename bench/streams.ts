/**
 * npm run bench:streams
 *
 * Many concurrent streams against one instance. The server runs as a child
 * process (src/main.ts, so its RSS is its own) on a fresh Postgres database
 * and Redis, with an Enterprise key whose limit refuses nothing; it searches
 * a loopback world: a SearXNG peer that answers every query with the same
 * ten article-sized pages, served on loopback (BENCH_FRESH_PAGES=1: under
 * new URLs for every search). N clients open their streams at once
 * (BENCH_STREAMS, default 1,000; BENCH_SPREAD_MS opens them evenly over that
 * many ms instead): the WebSocket face, then the SSE face, each
 * on a fresh server and database. Reported per face: completed and errors,
 * the server's RSS when the load starts and at its peak (VmHWM, and the
 * highest sampled VmRSS), p50/p99 time from opening the stream to the first
 * `context` message and to the end of the stream, searches per second, how
 * many of a search's sources were read rather than taken from their snippets
 * (a run starved of time reads fewer: the read budget cuts it short), the
 * run queue's depth as /readyz reported it, and the calls it turned away: the
 * 503 queue_full refusals on arrival (how many, and p99 and slowest time from
 * asking to the refusal reaching the client: the WebSocket's error message,
 * the SSE response's head; beside them the p99 to the socket's close, and,
 * SSE only, the p99 of the server's own time for them, its access log's ms),
 * those refused after waiting, when runs grew slower
 * (how many, and the median time they waited), and the 504s (a call that
 * waited for its deadline in vain); beside them the p99 of /healthz polled
 * during the load, how fast the server answered anything meanwhile.
 *
 * BENCH_FACES=ws or sse runs one face; BENCH_DATABASE_URL and BENCH_REDIS_URL
 * point at the services (defaults: local Postgres and Redis);
 * RUN_CONCURRENCY, RUN_QUEUE_MAX, SEARCH_DEADLINE_MS, SEARCH_READ_BUDGET_MS
 * and BUN_OPTIONS, when set, are passed to the server; BENCH_PROFILE=1 writes
 * its CPU profile.
 */
import { readFileSync } from "node:fs";
import postgres from "postgres";
import { article } from "../test/helpers/peers/pages.ts";
import { startSearxngPeer } from "../test/helpers/peers/searxng.ts";
import { runCli, startServer, type ServerProcess } from "../test/helpers/process.ts";
import { seededRandom } from "./lib/latency.ts";
import { printTable, summarize, writeResults, type Row } from "./lib/report.ts";

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1_000);
// 0: every stream opens at once. Else they open evenly over this many ms, and each one's times count from its opening.
const SPREAD_MS = Number(process.env.BENCH_SPREAD_MS ?? 0);
const FACES = (process.env.BENCH_FACES ?? "ws,sse").split(",").map((f) => f.trim()) as Face[];
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const STREAM_TIMEOUT_MS = 180_000;
const PAGES = 10;
const PASSED_THROUGH = ["RUN_CONCURRENCY", "RUN_QUEUE_MAX", "SEARCH_DEADLINE_MS", "SEARCH_READ_BUDGET_MS", "BUN_OPTIONS"];

type Face = "ws" | "sse";

// Bun's fetch keeps at most 256 requests in flight unless told otherwise: the SSE clients would queue on
// our side of the wire. The setting is read at start, so the bench runs itself again with it.
const clientSlots = Number(process.env.BUN_CONFIG_MAX_HTTP_REQUESTS ?? 256);
if (FACES.includes("sse") && clientSlots < STREAMS + 64) {
  const child = Bun.spawn([process.execPath, ...process.argv.slice(1)], {
    env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: String(Math.min(65_535, STREAMS + 256)) },
    stdio: ["inherit", "inherit", "inherit"],
  });
  process.exit(await child.exited);
}

// ---- the loopback world: ten pages, and a SearXNG that finds them for any question. By default every
// search gets the same ten URLs, which after the warm-up the page cache answers: what is measured is the
// service's own work per run. BENCH_FRESH_PAGES=1 gives each search the ten under paths of its own, so
// every search fetches and extracts what it reads (extraction then dominates, and under load the read
// budget cuts reads short: see pages_read_per_search).
const FRESH_PAGES = process.env.BENCH_FRESH_PAGES === "1";
// Ten pages, each on one side of the river bridge and worded differently (near-copies are ranked out).
// Every page names the works department beyond its first sentence, and no snippet does: a context entry
// that names it came from the page as read, not from its search snippet.
const facts: [string, string[]][] = [
  [
    "cost",
    [
      "The river bridge will cost 42 million euros.",
      "According to the works department, the regional government pays two thirds of that sum.",
    ],
  ],
  [
    "schedule",
    [
      "Construction of the river bridge begins in March.",
      "The works department expects eighteen months of building before the first cars cross.",
    ],
  ],
  [
    "design",
    [
      "A cable-stayed design with a single white pylon won the competition.",
      "Engineers at the works department chose it for its slender deck and low upkeep.",
    ],
  ],
  [
    "traffic",
    [
      "Two lanes for cars and buses will cross the river bridge.",
      "The works department counted twenty thousand daily journeys that now detour through the old town.",
    ],
  ],
  [
    "funding",
    [
      "Regional grants and a European fund share the bill.",
      "The city itself borrows eight million, the works department told the finance committee.",
    ],
  ],
  [
    "critics",
    [
      "Opponents argued that repairing the old crossing would have been cheaper.",
      "Their petition to the works department gathered four thousand signatures last spring.",
    ],
  ],
  [
    "environment",
    [
      "Herons nest on the northern bank near the planned piers.",
      "The works department promised to pause piling work during the breeding season.",
    ],
  ],
  [
    "materials",
    [
      "Weathering steel and precast concrete segments make up the deck.",
      "Suppliers delivering to the works department must certify recycled content.",
    ],
  ],
  [
    "opening",
    [
      "A public festival will open the crossing in September 2027.",
      "The works department plans a day when only walkers and cyclists may use it.",
    ],
  ],
  [
    "maintenance",
    [
      "Sensors in the cables report strain every minute.",
      "The works department budgets three hundred thousand euros a year for inspections.",
    ],
  ],
];
// Pages of a real article's length (BENCH_PAGE_PARAGRAPHS, default 40 paragraphs, about 8 KB of text):
// reading, ranking and answering cost what they cost on the web. The filler varies from page to page.
const PARAGRAPHS = Number(process.env.BENCH_PAGE_PARAGRAPHS ?? 40);
const random = seededRandom(20261123);
const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
const subjects = [
  "The council",
  "A spokesperson",
  "The mayor",
  "Local traders",
  "Residents of the east bank",
  "The auditor",
  "A cycling group",
  "The harbour authority",
];
const verbs = ["noted", "argued", "recalled", "complained", "reported", "explained", "estimated", "suggested"];
const topics = [
  "the ferry timetable",
  "parking near the market",
  "the old tram depot",
  "school routes",
  "river levels in winter",
  "night buses",
  "the fish market",
  "street lighting",
  "the rowing club",
  "noise at the quay",
];
const details = [
  "during a long meeting",
  "in a letter to the newspaper",
  "at the spring fair",
  "in last year's survey",
  "on local radio",
  "in a public hearing",
];
const filler = () =>
  Array.from(
    { length: 3 },
    () =>
      `${pick(subjects)} ${pick(verbs)} that ${pick(topics)} ${pick(["changed", "mattered", "stayed the same", "needed work"])} ${pick(details)}.`,
  ).join(" ");
const pages = facts.map(([aspect, [lead, detail]]) =>
  article(`The river bridge: ${aspect}`, [lead!, detail!, ...Array.from({ length: Math.max(0, PARAGRAPHS - 2) }, filler)]),
);
const site = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(request) {
    const match = /^\/(?:s\/\d+|shared)\/(\d+)\.html$/.exec(new URL(request.url).pathname);
    const page = match ? pages[Number(match[1])] : undefined;
    return page
      ? new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } })
      : new Response("not found", { status: 404 });
  },
});
const siteUrl = `http://127.0.0.1:${site.port}`;
const searxng = startSearxngPeer();
searxng.setAnswers((ask) => {
  const search = /\bs(\d+)x\b/.exec(ask.query)?.[1];
  const folder = search && FRESH_PAGES ? `s/${search}` : "shared";
  return facts.map(([aspect, [lead]], n) => ({
    title: `The river bridge: ${aspect}`,
    url: `${siteUrl}/${folder}/${n}.html`,
    snippet: lead!,
  }));
});
// Two queries per search (the question and its key terms), both carrying the search's token.
const prompt = (i: number) => `What do we know about the river bridge s${i}x: cost, schedule, design and traffic?`;

// ---- the server
interface Instance {
  server: ServerProcess;
  key: string;
  database: string;
}

let running: Instance | undefined;
// An interrupted bench takes its server down with it.
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => {
    running?.server.child.kill();
    process.exit(130);
  });

async function startInstance(face: Face): Promise<Instance> {
  const database = `bench_streams_${process.pid}_${face}`;
  const admin = postgres(DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${database}" with (force)`);
  await admin.unsafe(`create database "${database}"`);
  await admin.end();
  const url = new URL(DATABASE_URL);
  url.pathname = `/${database}`;
  const env: Record<string, string> = {
    DATABASE_URL: url.toString(),
    REDIS_URL,
    RATE_LIMIT_KEY_PREFIX: `bench:streams:${process.pid}:${face}:`,
    SEARCH_PROVIDERS: "searxng",
    SEARXNG_URL: searxng.url,
    FETCH_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
    // Every page here lives on one loopback host; on the web they come from many, so the per-host
    // politeness cap (6 by default) would only measure this bench's own shape.
    FETCH_MAX_PER_HOST: "64",
    WS_MAX_SOCKETS_PER_KEY: String(Math.max(20, STREAMS)),
    LOG_LEVEL: "info",
    // One server process, whose RSS and queue are measured (with Postgres and Redis the default is one per CPU).
    WEB_CONCURRENCY: "1",
  };
  for (const name of PASSED_THROUGH) if (process.env[name]) env[name] = process.env[name]!;
  // The CLI migrates the fresh database; an Enterprise limit of a million a minute refuses nothing here.
  const created = await runCli(["accounts", "create", "--name", "bench", "--limit", "1000000", "--json"], env);
  if (created.code !== 0) throw new Error(`accounts create failed: ${created.stderr}`);
  const key = JSON.parse(created.stdout).api_key as string;
  // BENCH_PROFILE=1 writes a CPU profile of each server run (markdown, for reading) to /tmp/bench-profile.
  const profile: Record<string, string> = process.env.BENCH_PROFILE
    ? { BUN_OPTIONS: "--cpu-prof --cpu-prof-md --cpu-prof-dir=/tmp/bench-profile" }
    : {};
  running = { server: await startServer({ ...env, ...profile }), key, database };
  return running;
}

async function stopInstance(instance: Instance): Promise<void> {
  const stopped = await Promise.race([instance.server.stop(), Bun.sleep(30_000).then(() => null)]);
  if (stopped === null) {
    // Seen once: a SIGTERM'd server stuck in its shutdown with a Postgres connection idle in transaction.
    console.error(`the server did not stop within 30 s of SIGTERM; killing it. Its last lines:\n${instance.server.output().slice(-2_000)}`);
    instance.server.child.kill("SIGKILL");
    await instance.server.child.exited;
  }
  const admin = postgres(DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${instance.database}" with (force)`);
  await admin.end();
}

function procStatusKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) : Number.NaN;
}

// ---- the clients
const progress = { settled: 0, contexts: 0 };

const PAGE_ONLY = /works department/;

function countSources(result: StreamResult, content: unknown): void {
  const entries = Array.isArray(content) ? (content as { metadata?: { content?: string } }[]) : [];
  result.sources = entries.length;
  result.sourcesRead = entries.filter((e) => PAGE_ONLY.test(e.metadata?.content ?? "")).length;
}
interface StreamResult {
  ok: boolean;
  /** Context entries, and how many carry text from the page itself (not only its search snippet). */
  sources: number;
  sourcesRead: number;
  /** WebSocket only: when the upgrade was answered (authenticated, rate limited, opened). */
  openedMs: number;
  /** When the search was asked: the WebSocket's message sent, the SSE request started. */
  askedMs: number;
  /** The error's code (queue_full, deadline_exceeded, …), when the service said one. */
  code?: string;
  /**
   * When the error reached the client: the WebSocket's error message (the close follows it), the SSE response's
   * head. What a caller waits for a refusal.
   */
  errorMs: number;
  /** The server's id for the call (SSE: its X-Request-Id), to find its access log line. */
  requestId?: string;
  firstContextMs: number;
  doneMs: number;
  error?: string;
}

/** A stream's result before anything happened: times are NaN until measured. */
function unsettled(): StreamResult {
  return {
    ok: false,
    sources: 0,
    sourcesRead: 0,
    openedMs: Number.NaN,
    askedMs: Number.NaN,
    errorMs: Number.NaN,
    firstContextMs: Number.NaN,
    doneMs: Number.NaN,
  };
}

/** The code at the end of a stream's error text ("… (queue_full)"), as the WebSocket and SSE faces send it. */
const codeOf = (text: string) => /\((\w+)\)$/.exec(text)?.[1];

function webSocketSearch(base: string, key: string, i: number, started: number): Promise<StreamResult> {
  return new Promise((resolve) => {
    const result = unsettled();
    let answered = false;
    const socket = new WebSocket(`${base.replace("http", "ws")}/v1/ws/search`, { headers: { "X-API-Key": key } } as unknown as string[]);
    // A socket that never opened may never report its close: the timeout settles the result itself.
    const timer = setTimeout(() => {
      socket.close();
      resolve({ ...result, error: "timeout", doneMs: performance.now() - started });
    }, STREAM_TIMEOUT_MS);
    socket.onopen = () => {
      result.openedMs = performance.now() - started;
      result.askedMs = performance.now() - started;
      socket.send(JSON.stringify({ prompt: prompt(i) }));
    };
    socket.onmessage = (event) => {
      const message = JSON.parse(String(event.data)) as { type: string; content: unknown };
      if (message.type === "context" && Number.isNaN(result.firstContextMs)) {
        result.firstContextMs = performance.now() - started;
        countSources(result, message.content);
        progress.contexts++;
      } else if (message.type === "response") answered = true;
      else if (message.type === "error") {
        result.errorMs = performance.now() - started;
        result.error = String(message.content);
        result.code = codeOf(result.error);
      }
    };
    socket.onclose = (event) => {
      clearTimeout(timer);
      result.doneMs = performance.now() - started;
      if (!result.error && (event.code !== 1000 || event.reason !== "done")) result.error = `closed ${event.code} ${event.reason}`;
      result.ok = !result.error && answered && !Number.isNaN(result.firstContextMs);
      if (!result.ok && !result.error) result.error = "no context or no answer";
      progress.settled++;
      resolve(result);
    };
  });
}

async function sseSearch(base: string, key: string, i: number, started: number): Promise<StreamResult> {
  const result = unsettled();
  let answered = false;
  result.askedMs = performance.now() - started;
  try {
    const response = await fetch(`${base}/v1/search`, {
      method: "POST",
      headers: { "X-API-Key": key, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ prompt: prompt(i) }),
      signal: AbortSignal.timeout(STREAM_TIMEOUT_MS),
    });
    if (response.status !== 200) {
      result.errorMs = performance.now() - started;
      result.requestId = response.headers.get("x-request-id") ?? undefined;
      const text = await response.text();
      result.error = `status ${response.status}: ${text.slice(0, 120)}`;
      result.code = /"error":"(\w+)"/.exec(text)?.[1];
    } else {
      const decoder = new TextDecoder();
      let buffered = "";
      for await (const chunk of response.body!) {
        buffered += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffered.indexOf("\n\n")) >= 0) {
          const frame = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const type = /^event: (\w+)$/m.exec(frame)?.[1];
          if (type === "context" && Number.isNaN(result.firstContextMs)) {
            result.firstContextMs = performance.now() - started;
            countSources(result, (JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? "{}") as { content?: unknown }).content);
            progress.contexts++;
          } else if (type === "response") answered = true;
          else if (type === "error") {
            result.error = /^data: (.*)$/m.exec(frame)?.[1] ?? "error";
            result.code = codeOf(String((JSON.parse(result.error) as { content?: unknown }).content));
          }
        }
      }
    }
  } catch (error) {
    result.error = String(error);
  }
  result.doneMs = performance.now() - started;
  result.ok = !result.error && answered && !Number.isNaN(result.firstContextMs);
  if (!result.ok && !result.error) result.error = "no context or no answer";
  progress.settled++;
  return result;
}

interface Readiness {
  runs?: { running: number; queued: number; capacity: number; queue_max: number };
}

async function runFace(face: Face): Promise<{ row: Row; raw: unknown }> {
  const instance = await startInstance(face);
  const { server, key } = instance;
  const pid = server.child.pid;
  // Warm-up off the clock: the JIT, the pools, and (unless each search has pages of its own) the page cache.
  for (let i = 0; i < 3; i++) {
    const warm =
      face === "ws" ? await webSocketSearch(server.url, key, i, performance.now()) : await sseSearch(server.url, key, i, performance.now());
    if (!warm.ok) throw new Error(`warm-up search failed: ${warm.error}`);
  }
  const startRssKb = procStatusKb(pid, "VmRSS");
  let peakRssKb = startRssKb;
  const depth = { running: 0, queued: 0, capacity: Number.NaN, queue_max: Number.NaN };
  const sampler = setInterval(() => (peakRssKb = Math.max(peakRssKb, procStatusKb(pid, "VmRSS"))), 100);
  const readyz = setInterval(async () => {
    const body = (await fetch(`${server.url}/readyz`)
      .then((r) => r.json())
      .catch(() => ({}))) as Readiness;
    if (!body.runs) return;
    depth.running = Math.max(depth.running, body.runs.running);
    depth.queued = Math.max(depth.queued, body.runs.queued);
    depth.capacity = body.runs.capacity;
    depth.queue_max = body.runs.queue_max;
  }, 500);
  // How fast the server answers anything meanwhile (the event loop's lag under this load): the floor under a refusal's time.
  const healthzMs: number[] = [];
  const healthz = setInterval(async () => {
    const asked = performance.now();
    if ((await fetch(`${server.url}/healthz`).catch(() => null))?.ok) healthzMs.push(performance.now() - asked);
  }, 250);

  const started = performance.now();
  progress.settled = progress.contexts = 0;
  const ticker = setInterval(
    () =>
      console.error(
        `${face} ${((performance.now() - started) / 1000).toFixed(0)} s: ${progress.contexts} with context, ${progress.settled} ended, rss ${Math.round(procStatusKb(pid, "VmRSS") / 1024)} MB, queue ${depth.running}/${depth.queued}`,
      ),
    5_000,
  );
  const search = face === "ws" ? webSocketSearch : sseSearch;
  const opening = (i: number) => (i * SPREAD_MS) / STREAMS;
  const results = await Promise.all(
    Array.from({ length: STREAMS }, async (_, i) => {
      if (SPREAD_MS) await Bun.sleep(opening(i));
      return { ...(await search(server.url, key, 1_000 + i, performance.now())), startMs: opening(i) };
    }),
  );
  const wallMs = performance.now() - started;
  clearInterval(sampler);
  clearInterval(readyz);
  clearInterval(healthz);
  clearInterval(ticker);
  const hwmKb = procStatusKb(pid, "VmHWM");
  const output = server.output();
  await stopInstance(instance);

  const completed = results.filter((r) => r.ok);
  const errors = results.filter((r) => !r.ok);
  const firstContext = summarize(completed.map((r) => r.firstContextMs));
  const done = summarize(completed.map((r) => r.doneMs));
  const lastDone = Math.max(0, ...completed.map((r) => r.startMs + r.doneMs));
  const errorKinds = [...new Set(errors.map((r) => r.error))].slice(0, 5);
  if (errorKinds.length) console.log(`${face}: ${errors.length} errors, e.g. ${JSON.stringify(errorKinds)}`);
  const opened = summarize(completed.map((r) => r.openedMs));
  // A refusal (503 queue_full) should come at once; a 504 is a call that waited its whole deadline in vain.
  // The queue says which: "a research run would wait …" on arrival (or a full queue), "this research run would wait …"
  // for one refused after waiting, when runs grew slower.
  const refusedAfterWaiting = (r: StreamResult) => r.error!.includes("this research run would wait");
  const refusalsAtOnce = errors.filter((r) => r.code === "queue_full" && !refusedAfterWaiting(r));
  // Until the refusal reached the client (its error message or response head); the socket's close comes after it.
  const refusedAtOnce = refusalsAtOnce.map((r) => r.errorMs - r.askedMs);
  const closedAtOnce = refusalsAtOnce.map((r) => r.doneMs - r.askedMs);
  // The server's own time for each (SSE: its access log line's ms, from the request's arrival to the answer): the
  // difference is the time the request and the answer spent on the wire and in either side's event loop.
  const serverMs = accessLogMs(output);
  const serverAtOnce = refusalsAtOnce.flatMap((r) => (r.requestId && serverMs.has(r.requestId) ? [serverMs.get(r.requestId)!] : []));
  const refusedLater = errors.filter((r) => r.code === "queue_full" && refusedAfterWaiting(r)).map((r) => r.doneMs - r.askedMs);
  const atOnce = summarize(refusedAtOnce);
  const row: Row = {
    face: face === "ws" ? "WebSocket" : "SSE",
    streams: STREAMS,
    completed: completed.length,
    errors: errors.length,
    refused_at_once: refusedAtOnce.length,
    at_once_p99_ms: refusedAtOnce.length ? Math.round(atOnce.p99) : "n/a",
    at_once_max_ms: refusedAtOnce.length ? Math.round(Math.max(...refusedAtOnce)) : "n/a",
    at_once_closed_p99_ms: closedAtOnce.length ? Math.round(summarize(closedAtOnce).p99) : "n/a",
    at_once_server_p99_ms: serverAtOnce.length ? Math.round(summarize(serverAtOnce).p99) : "n/a",
    refused_waiting: refusedLater.length,
    waiting_p50_s: refusedLater.length ? summarize(refusedLater).p50 / 1000 : "n/a",
    healthz_p99_ms: Math.round(summarize(healthzMs).p99),
    timed_out_504: errors.filter((r) => r.code === "deadline_exceeded").length,
    start_rss_mb: Math.round(startRssKb / 1024),
    peak_rss_mb: Math.round(hwmKb / 1024),
    peak_sampled_rss_mb: Math.round(peakRssKb / 1024),
    opened_p50_s: face === "ws" ? opened.p50 / 1000 : "n/a",
    first_context_p50_s: firstContext.p50 / 1000,
    first_context_p99_s: firstContext.p99 / 1000,
    done_p50_s: done.p50 / 1000,
    done_p99_s: done.p99 / 1000,
    searches_per_s: completed.length / (lastDone / 1000),
    // Sources whose page was read in time, not answered from the snippet: a run starved of time reads fewer.
    pages_read_per_search: completed.reduce((sum, r) => sum + r.sourcesRead, 0) / Math.max(1, completed.length),
    wall_s: wallMs / 1000,
    queue: Number.isNaN(depth.capacity)
      ? "n/a"
      : `K=${depth.capacity}, peak ${depth.running} running + ${depth.queued} queued (max ${depth.queue_max})`,
  };
  return {
    row,
    raw: {
      firstContextMs: completed.map((r) => r.firstContextMs),
      doneMs: completed.map((r) => r.doneMs),
      refusedAtOnceMs: refusedAtOnce,
      refusedAtOnceServerMs: serverAtOnce,
      refusedAfterWaitingMs: refusedLater,
      errors: errorKinds,
      depth,
    },
  };
}

/** Each access log line's ms, by request id. */
function accessLogMs(output: string): Map<string, number> {
  const ms = new Map<string, number>();
  for (const line of output.split("\n")) {
    if (!line.includes('"msg":"request"')) continue;
    try {
      const entry = JSON.parse(line) as { request_id?: string; ms?: number };
      if (entry.request_id && typeof entry.ms === "number") ms.set(entry.request_id, entry.ms);
    } catch {
      // A line cut short by the capture: not an access line we can read.
    }
  }
  return ms;
}

const rows: Row[] = [];
const raw: Record<string, unknown> = {};
for (const face of FACES) {
  const { row, raw: data } = await runFace(face);
  rows.push(row);
  raw[face] = data;
}
const settings = PASSED_THROUGH.filter((n) => process.env[n]).map((n) => `${n}=${process.env[n]}`);
printTable(
  `Streams: ${STREAMS} concurrent searches per face opened ${SPREAD_MS ? `evenly over ${SPREAD_MS / 1000} s` : "at once"}, one Enterprise key, Postgres + Redis, SearXNG peer and ${PAGES} pages on loopback (${FRESH_PAGES ? "new URLs for every search" : "the same for every search, cached"}); times from opening the stream${settings.length ? `; ${settings.join(", ")}` : ""}`,
  rows,
);
console.log(`\nwrote ${writeResults("streams", { streams: STREAMS, settings, rows, raw })}`);
site.stop(true);
searxng.stop();
process.exit(0);
