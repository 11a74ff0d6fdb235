/**
 * The fan-out's quorum and grace, through the production adapters against
 * real HTTP peers on loopback that speak SearXNG's, Brave's and Tavily's wire
 * formats: a straggler is cut once the calls that answered hold what the run
 * needs, its requests are aborted (the peer sees the client go), and it is
 * reported; without the quorum the run waits for it as before.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { startBravePeer } from "../../test/helpers/peers/brave.ts";
import type { PeerHit, PeerRequest } from "../../test/helpers/peers/provider-peer.ts";
import { startSearxngPeer } from "../../test/helpers/peers/searxng.ts";
import { startTavilyPeer } from "../../test/helpers/peers/tavily.ts";
import { ManualClock } from "../clock.ts";
import { createLogger } from "../log.ts";
import { CircuitBreaker } from "./breaker.ts";
import { CallLatencies } from "./call-latencies.ts";
import { fanOut, type FanoutSettings, type ProviderReport } from "./fanout.ts";
import { BraveSource } from "./sources/brave.ts";
import { SearxngSource } from "./sources/searxng.ts";
import { TavilySource } from "./sources/tavily.ts";

const searxng = startSearxngPeer();
const brave = startBravePeer();
const tavily = startTavilyPeer();
const peers = [searxng, brave, tavily];
afterAll(() => {
  for (const peer of peers) peer.stop();
});
const sources = [
  new SearxngSource({ baseUrl: searxng.url }),
  new BraveSource({ apiKey: brave.token, baseUrl: brave.url }),
  new TavilySource({ apiKey: tavily.apiKey, baseUrl: tavily.url }),
];

const STRAGGLER_MS = 3_000;
const pages = (n: number): PeerHit[] =>
  Array.from({ length: n }, (_, i) => ({ title: `Page ${i + 1}`, url: `https://example.org/page/${i + 1}`, snippet: `Page ${i + 1}.` }));

beforeEach(() => {
  for (const peer of peers) peer.reset();
  searxng.setAnswers(() => pages(6));
  brave.setAnswers(() => pages(6));
  tavily.setAnswers(() => pages(6));
  tavily.setLatency(STRAGGLER_MS);
});

const settings = (quorum: Partial<FanoutSettings["quorum"]> = {}, extra: Partial<FanoutSettings> = {}): FanoutSettings => ({
  providerTimeoutMs: 10_000,
  hedgeAfterMs: 10_000,
  resultsPerQuery: 8,
  hedging: false,
  quorum: { enabled: true, share: 0.5, graceFactor: 2, graceMinMs: 100, graceMaxMs: 2_000, ...quorum },
  ...extra,
});

/** Latencies where each named provider's recent calls took `ms`. */
function history(entries: Record<string, number>): Map<string, CallLatencies> {
  return new Map(
    Object.entries(entries).map(([name, ms]) => {
      const latencies = new CallLatencies();
      for (let i = 0; i < 5; i++) latencies.record(ms);
      return [name, latencies];
    }),
  );
}

/**
 * One fan-out of one query to the three peers; returns what it found, how long it took, and the breakers it used.
 * Tavily's recent calls took 40 ms unless said otherwise, so its grace is the floor of 100 ms.
 */
async function run(options: { settings?: FanoutSettings; need?: number; latencies?: Map<string, CallLatencies> } = {}) {
  const breakers = new Map(sources.map((s) => [s.name, new CircuitBreaker(new ManualClock(0))]));
  const started = performance.now();
  const found = await fanOut({
    sources,
    queries: ["river bridge"],
    scopes: { whitelist: null, blacklist: null },
    settings: options.settings ?? settings(),
    breakers,
    latencies: options.latencies ?? history({ tavily: 40 }),
    need: options.need ?? 6,
    signal: AbortSignal.timeout(30_000),
    log: createLogger({ level: "error", sink: () => {} }),
  });
  const report = (name: string) => found.reports.find((r) => r.name === name)!;
  return { ...found, ms: performance.now() - started, report, breakers };
}

/** The peer's request once it has seen its client go (an abort travels a little behind the cut), or as it is after a second. */
async function settledRequest<P>(requests: PeerRequest<P>[]): Promise<PeerRequest<P>> {
  for (let i = 0; i < 100 && requests[0]?.abortedAt === undefined; i++) await Bun.sleep(10);
  return requests[0]!;
}

const answeredAll = (report: ProviderReport) => ({
  calls: report.calls,
  succeeded: report.succeeded,
  failed: report.failed,
  cut: report.cut.length,
});

describe("a straggler is cut once the calls that answered hold what the run needs", () => {
  test("the straggler is cut after its grace, reported with its query, grace and reason, and the run goes on without it", async () => {
    const { ms, report, hits } = await run();
    // Twice tavily's median of 40 ms is below the floor of 100 ms.
    expect(ms).toBeGreaterThanOrEqual(100);
    expect(ms).toBeLessThan(1_500);
    const cut = report("tavily").cut;
    expect(cut).toHaveLength(1);
    expect(cut[0]).toMatchObject({ query: "river bridge", grace_ms: 100, reason: "straggler" });
    expect(cut[0]!.waited_ms).toBeGreaterThanOrEqual(100);
    expect(answeredAll(report("tavily"))).toEqual({ calls: 1, succeeded: 0, failed: 0, cut: 1 });
    expect(report("tavily").errors).toEqual([]);
    for (const name of ["searxng", "brave"]) expect(answeredAll(report(name))).toEqual({ calls: 1, succeeded: 1, failed: 0, cut: 0 });
    expect(hits.map((h) => h.url)).toEqual(pages(6).map((p) => p.url));
    for (const hit of hits) expect(hit.providers.sort()).toEqual(["brave", "searxng"]);
  });

  test("the cut call's request is aborted: the provider sees its client go", async () => {
    const { ms } = await run();
    const request = await settledRequest(tavily.requests);
    expect(request.abortedAt).toBeDefined();
    // Aborted at the cut, not at the call's own timeout or when the peer would have answered.
    expect(request.abortedAt! - request.receivedAt).toBeLessThan(Math.max(1_000, ms + 500));
    for (const peer of [searxng, brave]) expect(peer.last().abortedAt).toBeUndefined();
  });

  test("the grace is the factor times the straggler's own provider's median on this instance, within the bounds", async () => {
    // The providers that answered took milliseconds: only tavily's own history counts.
    const scaled = await run({ latencies: history({ tavily: 300 }) });
    expect(scaled.report("tavily").cut[0]?.grace_ms).toBe(600);
    expect(scaled.ms).toBeGreaterThanOrEqual(600);
    expect(scaled.ms).toBeLessThan(2_000);
    const capped = await run({ latencies: history({ tavily: 5_000 }), settings: settings({ graceMaxMs: 700 }) });
    expect(capped.report("tavily").cut[0]?.grace_ms).toBe(700);
    expect(capped.ms).toBeLessThan(2_000);
  });

  test("a provider with no history on this instance gets the longest grace, not one drawn from faster providers", async () => {
    const { report, ms } = await run({ latencies: new Map(), settings: settings({ graceMaxMs: 500 }) });
    expect(report("tavily").cut[0]?.grace_ms).toBe(500);
    expect(ms).toBeGreaterThanOrEqual(500);
  });

  test("each call's time goes into its provider's history, a cut one's as long as it waited, so a provider that became slower gets a longer grace", async () => {
    const latencies = history({ tavily: 40 });
    await run({ latencies });
    // Five calls of 40 ms and one cut after about 100: the median is still 40; the cut one counts for the next.
    expect(latencies.get("tavily")!.median()).toBe(40);
    for (let i = 0; i < 5; i++) await run({ latencies });
    expect(latencies.get("tavily")!.median()).toBeGreaterThanOrEqual(100);
    expect(latencies.get("searxng")!.median()).toBeLessThan(100);
  });

  test("a failed call counts as in: one answer that covers the need and one failure make the quorum", async () => {
    brave.setFault("500");
    const { ms, report } = await run({ settings: settings({ share: 2 / 3 }) });
    expect(ms).toBeLessThan(1_500);
    expect(report("brave").failed).toBe(1);
    expect(report("tavily").cut).toHaveLength(1);
  });

  test("a hedged straggler is cut whole: the first call and its hedge are both aborted", async () => {
    const { report } = await run({ settings: settings({ graceMinMs: 400 }, { hedging: true, hedgeAfterMs: 100 }) });
    expect(report("tavily").hedges).toBe(1);
    expect(report("tavily").cut).toHaveLength(1);
    for (let i = 0; i < 100 && tavily.requests.some((r) => r.abortedAt === undefined); i++) await Bun.sleep(10);
    expect(tavily.requests).toHaveLength(2);
    for (const request of tavily.requests) expect(request.abortedAt).toBeDefined();
  });

  test("a cut counts against the provider's breaker like a failure", async () => {
    const { breakers } = await run({ settings: settings({ graceMinMs: 100 }) });
    const tavilyBreaker = breakers.get("tavily")!;
    // Four more failures open it (threshold 5): the cut was the first.
    for (let i = 0; i < 4; i++) tavilyBreaker.failed();
    expect(tavilyBreaker.allow()).toBe(false);
    const searxngBreaker = breakers.get("searxng")!;
    for (let i = 0; i < 4; i++) searxngBreaker.failed();
    expect(searxngBreaker.allow()).toBe(true);
  });
});

describe("without the quorum the run waits for the straggler, as before", () => {
  test("when the calls that answered do not hold enough distinct results, the straggler is awaited and used", async () => {
    searxng.setAnswers(() => pages(2));
    brave.setAnswers(() => pages(2).reverse());
    tavily.setLatency(600);
    const { ms, report, hits } = await run({ need: 6 });
    expect(ms).toBeGreaterThanOrEqual(600);
    expect(answeredAll(report("tavily"))).toEqual({ calls: 1, succeeded: 1, failed: 0, cut: 0 });
    expect(tavily.last().abortedAt).toBeUndefined();
    expect(hits).toHaveLength(6);
  });

  test("until the share of calls is in, the straggler is awaited even when the first answer covers the need", async () => {
    brave.setLatency(600);
    tavily.setLatency(600);
    const { ms, report } = await run({ settings: settings({ share: 0.9 }) });
    expect(ms).toBeGreaterThanOrEqual(600);
    for (const name of ["brave", "tavily"]) expect(report(name).cut).toEqual([]);
  });

  test("SEARCH_QUORUM=false waits for every call", async () => {
    tavily.setLatency(600);
    const { ms, report } = await run({ settings: settings({ enabled: false }) });
    expect(ms).toBeGreaterThanOrEqual(600);
    expect(answeredAll(report("tavily"))).toEqual({ calls: 1, succeeded: 1, failed: 0, cut: 0 });
  });
});

describe("a provider's recent call times", () => {
  test("the median of the last calls, older ones forgotten", () => {
    const latencies = new CallLatencies(3);
    expect(latencies.median()).toBeUndefined();
    for (const ms of [10, 30, 20]) latencies.record(ms);
    expect(latencies.median()).toBe(20);
    latencies.record(100);
    latencies.record(200);
    // 10 and 30 are gone: 20, 100, 200.
    expect(latencies.median()).toBe(100);
    latencies.record(300);
    expect(latencies.median()).toBe(200);
  });
});
