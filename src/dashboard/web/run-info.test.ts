import { describe, expect, test } from "bun:test";
import { formatMoney, formatMs } from "./format.ts";
import type { ProviderReport, Source } from "./model.ts";
import { citedIds, mergeProviders, runSummary, runView, splitSources, summariseProvider } from "./run-info.ts";

const source = (id: number): Source => ({ id, metadata: { title: `Source ${id}`, url: `https://s${id}.test/`, content: "" } });

const report = (over: Partial<ProviderReport>): ProviderReport => ({
  name: "searxng",
  calls: 3,
  succeeded: 3,
  failed: 0,
  hedges: 0,
  skipped_by_breaker: 0,
  cut: [],
  errors: [],
  ...over,
});

describe("which sources an answer cites", () => {
  test("[n] and [n, m] markers name sources", () => {
    expect([...citedIds("Built in 1889 [1]. Tall [2, 4].[3]")].sort()).toEqual([1, 2, 3, 4]);
    expect(citedIds("No markers here.").size).toBe(0);
  });

  test("cited sources come first by number, then the ones read but not cited", () => {
    const split = splitSources({ response: "A [3]. B [1].", context: [source(2), source(1), source(3), source(4)] });
    expect(split.cited.map((s) => s.id)).toEqual([1, 3]);
    expect(split.uncited.map((s) => s.id)).toEqual([2, 4]);
    expect(split.known).toBe(true);
  });

  test("a structured answer has no markers: its sources are all listed, none set apart", () => {
    const split = splitSources({ response: { year: 1889 }, context: [source(1), source(2)] });
    expect(split).toEqual({ cited: [source(1), source(2)], uncited: [], known: false });
  });
});

describe("how a provider fared", () => {
  test("every call answered is OK", () => {
    expect(summariseProvider(report({}))).toEqual({ name: "searxng", outcome: "answered", words: "3 of 3 calls answered", error: null });
  });

  test("some answered, some failed or too slow, is partly, with the first error", () => {
    const summary = summariseProvider(
      report({ succeeded: 1, failed: 1, cut: [{ query: "q", waited_ms: 900, grace_ms: 500 }], errors: ["HTTP 502", "HTTP 503"] }),
    );
    expect(summary.outcome).toBe("partly");
    expect(summary.words).toBe("1 of 3 calls answered; 1 failed; 1 too slow");
    expect(summary.error).toBe("HTTP 502");
  });

  test("none answered is failed; no call with the circuit open is skipped; no call at all is unused", () => {
    expect(summariseProvider(report({ calls: 1, succeeded: 0, failed: 1 })).outcome).toBe("failed");
    expect(summariseProvider(report({ calls: 1, succeeded: 0, failed: 1 })).words).toBe("0 of 1 call answered; 1 failed");
    expect(summariseProvider(report({ calls: 0, succeeded: 0, skipped_by_breaker: 2 })).outcome).toBe("skipped");
    expect(summariseProvider(report({ calls: 0, succeeded: 0 })).outcome).toBe("unused");
  });
});

describe("a search's and an endpoint's run read alike", () => {
  test("a search tells its own time, stages, queries and providers; the page's measure is not needed", () => {
    const info = {
      token_usage: 4210,
      queries: ["river bridge cost"],
      timings_ms: { plan: 10, search: 300, total: 12_340 },
      providers: [report({ name: "a" }), report({ name: "b" })],
    };
    const view = runView(info, 99_999);
    expect(view.totalMs).toBe(12_340);
    expect(view.stages).toEqual([
      ["plan", 10],
      ["search", 300],
    ]);
    expect(view.queries).toEqual(["river bridge cost"]);
    expect(view.providers.map((p) => p.name)).toEqual(["a", "b"]);
  });

  test("an endpoint's steps give its stages, queries and providers (one per name, counts added); its time is the page's", () => {
    const info = {
      token_usage: 10,
      nodes: [
        { id: "tower", type: "search_agent", ms: 800, queries: ["eiffel height"], providers: [report({ calls: 1, succeeded: 1 })] },
        {
          id: "bridge",
          type: "search_agent",
          ms: 900,
          queries: ["bridge cost"],
          providers: [report({ calls: 2, succeeded: 1, failed: 1, errors: ["HTTP 500"] })],
        },
        { id: "combine", type: "general_agent", ms: 5 },
      ],
    };
    const view = runView(info, 1_234.4);
    expect(view.totalMs).toBe(1_234);
    expect(view.stages).toEqual([
      ["tower", 800],
      ["bridge", 900],
      ["combine", 5],
    ]);
    expect(view.queries).toEqual(["eiffel height", "bridge cost"]);
    expect(view.providers).toEqual([report({ calls: 3, succeeded: 2, failed: 1, errors: ["HTTP 500"] })]);
    expect(mergeProviders([])).toEqual([]);
  });
});

describe("the run in one line", () => {
  test("time, tokens, cost and providers", () => {
    const view = runView({
      token_usage: 4210,
      timings_ms: { total: 12_340 },
      providers: [report({}), report({ name: "b" }), report({ name: "c" })],
    });
    // Money reads as formatMoney says, whatever its rule.
    expect(runSummary(view, 4210, 0.0042)).toBe(`12.3 s · 4,210 tokens · ${formatMoney(0.0042)} · 3 providers`);
  });

  test("what the run does not tell is left out", () => {
    expect(runSummary(runView({ token_usage: 1 }), 1, null)).toBe("1 token");
  });

  test("durations read in the unit that fits", () => {
    expect(formatMs(850)).toBe("850 ms");
    expect(formatMs(12_340)).toBe("12.3 s");
    expect(formatMs(125_000)).toBe("2 min 5 s");
  });
});
