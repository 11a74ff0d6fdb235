/**
 * npm run bench:fanout
 *
 * The research run's latency against the critical path it cannot beat.
 * Three providers on loopback speak SearXNG's, Brave's and Tavily's wire
 * formats with log-normal latencies (Tavily also has a slow tail: 10% of its
 * calls take 1.5–3 s more); a page server answers every page with its own
 * log-normal latency. Every request gets unique pages, so reads are real.
 * For each request two critical paths are computed from the latencies
 * injected for it. "Wait-all": the slowest provider call (or its hedge)
 * plus the slowest page read, the best a run can do when reading waits for
 * the whole fan-out. "Pipelined": the later of the slowest provider call
 * and the fastest call plus the slowest page, the best a run can do when
 * pages start reading as the first list arrives (every provider here
 * returns the same pages). "Quorum": the later of the call that makes the
 * quorum (the first call's list covers the pages read here, so it is the
 * call that brings SEARCH_QUORUM_SHARE of the calls in) and the fastest call
 * plus the slowest page, the best a run can do that goes on without its
 * stragglers and gives them no grace. Reported, for quorum on/off, read
 * grace on/off, hedging on/off and early reads on/off: end-to-end p50/p99
 * and their ratio next to the three; the calls and the page reads cut per
 * request (a run with the read grace may beat the ideals, which wait for the
 * slowest page); the p99 of the requests where no
 * provider call drew the slow tail (what is left when none straggles);
 * time to the first WebSocket `context` message; and the server's CPU time
 * per request (from /proc, so the peers' work is not counted). BENCH_RUNS=2 runs only the first two
 * rows (read grace on and off, with the quorum, hedging and early reads on);
 * BENCH_RUNS=3 adds the run with neither the quorum nor the read grace.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startBravePeer } from "../test/helpers/peers/brave.ts";
import type { PeerRequest } from "../test/helpers/peers/provider-peer.ts";
import { startSearxngPeer } from "../test/helpers/peers/searxng.ts";
import { startTavilyPeer } from "../test/helpers/peers/tavily.ts";
import { runCli, startServer, type ServerProcess } from "../test/helpers/process.ts";
import { cpuSeconds } from "./lib/cpu.ts";
import { lognormal, seededRandom } from "./lib/latency.ts";
import { printTable, summarize, writeResults, type Row } from "./lib/report.ts";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 120);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const WS_REQUESTS = Number(process.env.BENCH_WS_REQUESTS ?? 40);
const PAGES_PER_REQUEST = 6;
const HEDGE_AFTER_MS = 400;
const QUORUM_SHARE = 0.5;

// ---- injected latencies, recorded per request id
interface Draws {
  calls: Map<string, number[]>;
  pages: number[];
}
const draws = new Map<string, Draws>();
const random = seededRandom(20261122);
const drawsOf = (id: string) => {
  let d = draws.get(id);
  if (!d) draws.set(id, (d = { calls: new Map(), pages: [] }));
  return d;
};
const idOf = (text: unknown) => /\bq(\d+)x\b/.exec(String(text ?? ""))?.[1] ?? "none";

function providerLatency(name: string, slowTail: boolean) {
  return (request: PeerRequest<{ q?: unknown; query?: unknown }>) => {
    const query = String(request.params.q ?? request.params.query ?? "");
    let ms = lognormal(random, 90, 0.5);
    if (slowTail && random() < 0.1) ms += 1_500 + random() * 1_500;
    const calls = drawsOf(idOf(query)).calls;
    const key = `${name}:${query}`;
    calls.set(key, [...(calls.get(key) ?? []), ms]);
    return ms;
  };
}

// ---- the simulated web
const site = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    const match = /^\/page\/(\d+)\/(\d+)\.html$/.exec(new URL(request.url).pathname);
    if (!match) return new Response("not found", { status: 404 });
    const [, id, n] = match;
    const ms = Math.min(lognormal(random, 60, 0.7), 2_000);
    drawsOf(id!).pages.push(ms);
    await Bun.sleep(ms);
    const paragraphs = Array.from(
      { length: 8 },
      (_, i) =>
        `<p>Report ${id}, section ${i}: the river bridge project number ${id} reached milestone ${n}.${i} on schedule, the council said in its statement about bridge ${id}.</p>`,
    );
    return new Response(
      `<!doctype html><html lang="en"><head><title>Bridge report ${id}-${n}</title></head><body><nav><a href="/">Home</a></nav><article><h1>Bridge report ${id}-${n}</h1>${paragraphs.join("")}</article><footer>Footer</footer></body></html>`,
      {
        headers: { "content-type": "text/html; charset=utf-8" },
      },
    );
  },
});
const siteUrl = `http://127.0.0.1:${site.port}`;
const hitsFor = (query: string) =>
  Array.from({ length: PAGES_PER_REQUEST }, (_, n) => ({
    title: `Bridge report ${idOf(query)}-${n}`,
    url: `${siteUrl}/page/${idOf(query)}/${n}.html`,
    snippet: `The river bridge project ${idOf(query)} milestone ${n}.`,
  }));

const searxng = startSearxngPeer();
const brave = startBravePeer();
const tavily = startTavilyPeer();
searxng.setLatency(providerLatency("searxng", false));
brave.setLatency(providerLatency("brave", false));
tavily.setLatency(providerLatency("tavily", true));
for (const peer of [searxng, brave, tavily]) peer.setAnswers((ask) => hitsFor(ask.query));

/** When each provider call answered (the hedge's answer if it was first). */
function callTimes(id: string, hedging: boolean): number[] {
  return [...draws.get(id)!.calls.values()].map((list) =>
    hedging && list.length > 1 ? Math.min(list[0]!, HEDGE_AFTER_MS + list[1]!) : list[0]!,
  );
}

function idealMs(id: string, hedging: boolean, pipelined: boolean): number {
  const d = draws.get(id);
  if (!d) return Number.NaN;
  const calls = callTimes(id, hedging);
  const slowestPage = Math.max(0, ...d.pages);
  const slowestCall = Math.max(0, ...calls);
  return pipelined ? Math.max(slowestCall, Math.min(...calls) + slowestPage) : slowestCall + slowestPage;
}

/** Whether a provider call of this request drew the slow tail (1.5 s or more: the log-normal part alone never gets there). */
const straggled = (id: string) => [...(draws.get(id)?.calls.values() ?? [])].some((list) => list[0]! >= 1_500);

/** The critical path of a run that goes on once the quorum holds, with no grace: see the header. */
function quorumIdealMs(id: string, hedging: boolean, pipelined: boolean): number {
  const d = draws.get(id);
  if (!d) return Number.NaN;
  const calls = callTimes(id, hedging).sort((a, b) => a - b);
  const quorumCall = calls[Math.max(0, Math.ceil(QUORUM_SHARE * calls.length) - 1)]!;
  const slowestPage = Math.max(0, ...d.pages);
  return pipelined ? Math.max(quorumCall, calls[0]! + slowestPage) : quorumCall + slowestPage;
}

async function startApp(
  hedging: boolean,
  early: boolean,
  quorum: boolean,
  readGrace: boolean,
): Promise<{ server: ServerProcess; key: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "bench-fanout-"));
  const env: Record<string, string> = {
    DATA_DIR: dir,
    ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
    LOG_LEVEL: "warn",
    SEARCH_PROVIDERS: "searxng,brave,tavily",
    SEARXNG_URL: searxng.url,
    BRAVE_URL: brave.url,
    BRAVE_API_KEY: brave.token,
    TAVILY_URL: tavily.url,
    TAVILY_API_KEY: tavily.apiKey,
    FETCH_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
    HEDGE_AFTER_MS: String(HEDGE_AFTER_MS),
    PROVIDER_TIMEOUT_MS: "5000",
    SEARCH_HEDGING: String(hedging),
    SEARCH_EARLY_READS: String(early),
    SEARCH_QUORUM: String(quorum),
    SEARCH_QUORUM_SHARE: String(QUORUM_SHARE),
    SEARCH_READ_GRACE: String(readGrace),
    SEARCH_READ_PAGES: String(PAGES_PER_REQUEST),
    SEARCH_READ_CONCURRENCY: String(PAGES_PER_REQUEST),
    // Every page here lives on one loopback host; on the web they come from many, so the per-host
    // politeness cap (6 by default) would only measure this bench's own shape.
    FETCH_MAX_PER_HOST: "64",
  };
  const created = await runCli(["accounts", "create", "--name", "bench", "--limit", "1000000", "--json"], env);
  const key = JSON.parse(created.stdout).api_key as string;
  // BENCH_PROFILE=1 writes a CPU profile of each server run (markdown, for reading) to /tmp/bench-profile.
  const profile: Record<string, string> = process.env.BENCH_PROFILE
    ? { BUN_OPTIONS: "--cpu-prof --cpu-prof-md --cpu-prof-dir=/tmp/bench-profile" }
    : {};
  const server = await startServer({ ...env, ...profile, LOG_LEVEL: "info" });
  return { server, key, dir };
}

const stageTimes = new Map<string, Record<string, number>>();
const cutCalls = new Map<string, number>();
const cutReads = new Map<string, number>();

async function httpPhase(base: string, key: string, firstId: number): Promise<{ e2e: number[]; ids: string[] }> {
  const e2e: number[] = [];
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        const id = String(firstId + next++);
        const started = performance.now();
        const response = await fetch(`${base}/v1/search`, {
          method: "POST",
          headers: { "X-API-Key": key, "content-type": "application/json" },
          body: JSON.stringify({ prompt: `q${id}x When did river bridge project ${id} reach its milestone?` }),
        });
        const body = (await response.json()) as {
          context?: unknown[];
          info?: { timings_ms: Record<string, number>; providers: { cut: unknown[] }[]; pages: { cut?: unknown[] } };
        };
        if (body.info) stageTimes.set(id, body.info.timings_ms);
        if (body.info)
          cutCalls.set(
            id,
            body.info.providers.reduce((n, p) => n + p.cut.length, 0),
          );
        if (body.info) cutReads.set(id, body.info.pages.cut?.length ?? 0);
        if (response.status !== 200 || !body.context?.length)
          throw new Error(`request ${id}: ${response.status} ${JSON.stringify(body).slice(0, 200)}`);
        e2e.push(performance.now() - started);
        ids.push(id);
      }
    }),
  );
  return { e2e, ids };
}

async function firstContextMs(base: string, key: string, id: string): Promise<number> {
  const socket = new WebSocket(`${base.replace("http", "ws")}/v1/ws/search`, { headers: { "X-API-Key": key } } as unknown as string[]);
  return new Promise((resolve, reject) => {
    let started = 0;
    socket.onopen = () => {
      started = performance.now();
      socket.send(JSON.stringify({ prompt: `q${id}x When did river bridge project ${id} reach its milestone?` }));
    };
    socket.onmessage = (event) => {
      const message = JSON.parse(String(event.data));
      if (message.type === "context") {
        resolve(performance.now() - started);
        socket.close();
      } else if (message.type === "error") reject(new Error(message.content));
    };
    socket.onerror = () => reject(new Error("socket error"));
  });
}

const rows: Row[] = [];
const results: Record<string, unknown> = {};
// The first two differ only in the read grace, the first and third in the quorum too: the runs without them are the
// baselines measured in the same run.
const RUNS = [
  { quorum: true, readGrace: true, hedging: true, early: true },
  { quorum: true, readGrace: false, hedging: true, early: true },
  { quorum: false, readGrace: false, hedging: true, early: true },
  { quorum: true, readGrace: true, hedging: true, early: false },
  { quorum: true, readGrace: true, hedging: false, early: true },
  { quorum: true, readGrace: true, hedging: false, early: false },
].slice(0, Number(process.env.BENCH_RUNS ?? Infinity));
for (const [runIndex, { quorum, readGrace, hedging, early }] of RUNS.entries()) {
  const { server, key, dir } = await startApp(hedging, early, quorum, readGrace);
  const firstId = (runIndex + 1) * 100_000;
  const label = `quorum ${quorum ? "on" : "off"}, read grace ${readGrace ? "on" : "off"}, hedging ${hedging ? "on" : "off"}, early reads ${early ? "on" : "off"}`;
  // Warm the process (JIT, connections, database) off the clock.
  await httpPhase(server.url, key, firstId - 10_000).catch(() => {});
  draws.clear();
  const cpuBefore = cpuSeconds(server.child.pid);
  const { e2e, ids } = await httpPhase(server.url, key, firstId);
  const cpuMs = ((cpuSeconds(server.child.pid) - cpuBefore) * 1000) / ids.length;
  const ideal = ids.map((id) => idealMs(id, hedging, false));
  const pipelined = ids.map((id) => idealMs(id, hedging, true));
  const idealNoHedge = ids.map((id) => idealMs(id, false, false));
  const quorumIdeal = ids.map((id) => quorumIdealMs(id, hedging, early));
  const overhead = ids.map((_, i) => e2e[i]! - (quorum ? quorumIdeal : early ? pipelined : ideal)[i]!);
  const stage = (name: string) => summarize(ids.map((i) => stageTimes.get(i)?.[name] ?? Number.NaN)).p50;
  const searchIdeal = summarize(ids.map((i) => Math.max(0, ...callTimes(i, hedging)))).p50;
  const readIdeal = summarize(ids.map((i) => Math.max(0, ...draws.get(i)!.pages))).p50;
  console.log(
    `${label}: stage p50 ms: plan ${stage("plan")}, search ${stage("search")} (ideal ${searchIdeal.toFixed(0)}), read ${stage("read")} (ideal ${readIdeal.toFixed(0)}), rank ${stage("rank")}, answer ${stage("answer")}, total ${stage("total")}`,
  );
  // Where the tail goes: the stages of the slowest requests.
  const slowest = ids.map((id, i) => ({ id, ms: e2e[i]! })).sort((a, b) => b.ms - a.ms);
  for (const { id, ms } of slowest.slice(0, 3)) {
    const t = stageTimes.get(id) ?? {};
    const slowPage = Math.max(0, ...(draws.get(id)?.pages ?? []));
    const calls = callTimes(id, hedging).map((c) => c.toFixed(0));
    console.log(
      `  slow request ${id}: e2e ${ms.toFixed(0)}, search ${t.search} (calls ${calls.join("/")}), read ${t.read} (slowest page ${slowPage.toFixed(0)}), pages cut ${cutReads.get(id) ?? 0}, total ${t.total}`,
    );
  }
  const ttfc: number[] = [];
  for (let i = 0; i < WS_REQUESTS; i++) ttfc.push(await firstContextMs(server.url, key, String(firstId + 50_000 + i)));
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
  const s = summarize(e2e);
  const id = summarize(ideal);
  const pipe = summarize(pipelined);
  const quorumPath = summarize(quorumIdeal);
  rows.push({
    run: label,
    requests: ids.length,
    e2e_p50_ms: s.p50,
    e2e_p99_ms: s.p99,
    p99_over_p50: s.p99 / s.p50,
    wait_all_ideal_p50_ms: id.p50,
    p50_vs_wait_all_ideal: s.p50 / id.p50,
    pipelined_ideal_p50_ms: pipe.p50,
    p50_vs_pipelined_ideal: s.p50 / pipe.p50,
    quorum_ideal_p50_ms: quorumPath.p50,
    quorum_ideal_p99_ms: quorumPath.p99,
    p50_vs_quorum_ideal: s.p50 / quorumPath.p50,
    calls_cut_per_request: ids.reduce((n, i) => n + (cutCalls.get(i) ?? 0), 0) / ids.length,
    reads_cut_per_request: ids.reduce((n, i) => n + (cutReads.get(i) ?? 0), 0) / ids.length,
    // What is left of the tail when no provider straggles: the pages' own tail and the machine's.
    requests_with_slow_call: ids.filter(straggled).length,
    e2e_p99_no_slow_call_ms: summarize(e2e.filter((_, i) => !straggled(ids[i]!))).p99,
    p99_vs_no_hedge_wait_all_p99: s.p99 / summarize(idealNoHedge).p99,
    overhead_p50_ms: summarize(overhead).p50,
    first_context_p50_ms: summarize(ttfc).p50,
    first_context_p99_ms: summarize(ttfc).p99,
    server_cpu_ms_per_request: cpuMs,
  });
  results[label] = { e2e, ideal, pipelined, quorumIdeal, idealNoHedge, ttfc, cpuMs };
}

printTable(
  `Fan-out: ${REQUESTS} searches at concurrency ${CONCURRENCY}, 3 providers (one with a slow tail), ${PAGES_PER_REQUEST} unique pages each; ideals from the injected latencies: wait-all = slowest call + slowest page, pipelined = max(slowest call, fastest call + slowest page), quorum = max(the call that brings ${QUORUM_SHARE * 100}% of the calls in, fastest call + slowest page)`,
  rows,
);
console.log(`\nwrote ${writeResults("fanout", { rows, results })}`);
site.stop(true);
for (const peer of [searxng, brave, tavily]) peer.stop();
process.exit(0);
