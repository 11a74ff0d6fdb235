import { describe, expect, test } from "bun:test";
import { Counter, Histogram, type Metric, Registry } from "prom-client";
import { SeriesCount, SeriesCounter, SeriesHistogram } from "./series.ts";

/** A scrape's lines as a set, each sample's labels sorted: the same series in any label order compare equal. */
function samples(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const match = line.match(/^([^{ ]+)(?:\{(.*)\})? (.+)$/)!;
      const labels = (match[2] ?? "").match(/\w+="(?:[^"\\]|\\.)*"/g) ?? [];
      return `${match[1]}{${labels.sort().join(",")}} ${match[3]}`;
    })
    .sort();
}

async function scrape(metric: unknown): Promise<string> {
  const registry = new Registry();
  registry.registerMetric(metric as Metric);
  return registry.metrics();
}

const BUCKETS = [0.001, 0.01, 0.1, 1];

describe("series read by prom-client's registry", () => {
  test("a counter scrapes as prom-client's own Counter does for the same increments", async () => {
    const ours = new SeriesCounter("requests_total", "Requests.", ["route", "status_class"]);
    const theirs = new Counter({ name: "requests_total", help: "Requests.", labelNames: ["route", "status_class"], registers: [] });
    for (const [labels, by] of [
      [{ route: "/v1/search", status_class: "2xx" }, 1],
      [{ status_class: "2xx", route: "/v1/search" }, 2],
      [{ route: "/v1/account", status_class: "4xx" }, 1],
      [{ route: 'a "quoted"\nroute\\', status_class: "5xx" }, 0.5],
    ] as const) {
      ours.inc(labels, by);
      theirs.inc(labels, by);
    }
    const text = await scrape(ours);
    expect(samples(text)).toEqual(samples(await scrape(theirs)));
    expect(text).toContain("# TYPE requests_total counter");
    expect(samples(text)).toContain('requests_total{route="/v1/search",status_class="2xx"} 3');
  });

  test("a histogram scrapes as prom-client's own Histogram does: cumulative buckets, a bound's own value in it, +Inf, sum, count", async () => {
    const ours = new SeriesHistogram("duration_seconds", "Time.", ["stage"], BUCKETS);
    const theirs = new Histogram({ name: "duration_seconds", help: "Time.", labelNames: ["stage"], buckets: BUCKETS, registers: [] });
    for (const [stage, seconds] of [
      ["plan", 0.0005],
      ["plan", 0.01],
      ["plan", 0.05],
      ["plan", 7],
      ["read", 1],
      ["read", 0],
    ] as const) {
      ours.observe({ stage }, seconds);
      theirs.observe({ stage }, seconds);
    }
    const text = await scrape(ours);
    expect(samples(text)).toEqual(samples(await scrape(theirs)));
    expect(samples(text)).toContain('duration_seconds_bucket{le="0.01",stage="plan"} 2');
    expect(samples(text)).toContain('duration_seconds_bucket{le="+Inf",stage="plan"} 4');
    expect(samples(text)).toContain('duration_seconds_count{stage="plan"} 4');
  });

  test("a number and its text are one series; values that would join into the same key are two, as in prom-client", async () => {
    const ours = new SeriesCounter("calls_total", "Calls.", ["a", "b"]);
    const theirs = new Counter({ name: "calls_total", help: "Calls.", labelNames: ["a", "b"], registers: [] });
    for (const labels of [
      { a: 200, b: "x" },
      { a: "200", b: "x" },
      { a: "p\u0001q", b: "r" },
      { a: "p", b: "q\u0001r" },
      { a: "only" },
      { a: "only", b: "" },
    ]) {
      ours.inc(labels);
      theirs.inc(labels);
    }
    const text = await scrape(ours);
    expect(samples(text)).toEqual(samples(await scrape(theirs)));
    expect(samples(text)).toContain('calls_total{a="200",b="x"} 2');
    expect(samples(text).filter((line) => line.includes("\u0001"))).toHaveLength(2);
  });

  test("a series without labels, and buckets given out of order", async () => {
    const ours = new SeriesHistogram("wait_seconds", "Waits.", [], [1, 0.1]);
    const theirs = new Histogram({ name: "wait_seconds", help: "Waits.", buckets: [0.1, 1], registers: [] });
    for (const seconds of [0.05, 0.5, 5]) {
      ours.observe({}, seconds);
      theirs.observe(seconds);
    }
    expect(samples(await scrape(ours))).toEqual(samples(await scrape(theirs)));
  });

  test("what would break a counter or a histogram is dropped, never thrown: a negative step, NaN", async () => {
    const counter = new SeriesCounter("c_total", "C.", ["kind"]);
    counter.inc({ kind: "a" });
    expect(() => counter.inc({ kind: "a" }, -5)).not.toThrow();
    counter.inc({ kind: "a" }, Number.NaN);
    expect(samples(await scrape(counter))).toEqual(['c_total{kind="a"} 1']);
    const histogram = new SeriesHistogram("h_seconds", "H.", [], BUCKETS);
    histogram.observe({}, Number.NaN);
    expect(await scrape(histogram)).not.toContain("h_seconds_count");
  });

  test("a series keeps its own labels: the caller's object, changed later, changes nothing; reset empties it", async () => {
    const counter = new SeriesCounter("c_total", "C.", ["kind"]);
    const labels: Record<string, string> = { kind: "a" };
    counter.inc(labels);
    labels.kind = "b";
    labels.extra = "not a label";
    expect(samples(await scrape(counter))).toEqual(['c_total{kind="a"} 1']);
    counter.reset();
    expect(samples(await scrape(counter))).toEqual([]);
  });

  test("a histogram's count, as a counter, scrapes as prom-client's Counter does when counted beside it", async () => {
    const histogram = new SeriesHistogram("latency_seconds", "Latency.", ["route", "status_class"], BUCKETS);
    const ours = new SeriesCount("requests_total", "Requests.", histogram);
    const theirs = new Counter({ name: "requests_total", help: "Requests.", labelNames: ["route", "status_class"], registers: [] });
    expect(await scrape(ours)).toBe(await scrape(theirs));
    for (const [labels, seconds] of [
      [{ route: "/v1/search", status_class: "2xx" }, 0.3],
      [{ status_class: "2xx", route: "/v1/search" }, 2],
      [{ route: "/v1/account", status_class: "4xx" }, 0.001],
    ] as const) {
      histogram.observe(labels, seconds);
      theirs.inc(labels);
    }
    expect(samples(await scrape(ours))).toEqual(samples(await scrape(theirs)));
    // It holds nothing of its own: the histogram's reset empties it.
    histogram.reset();
    expect(samples(await scrape(ours))).toEqual([]);
  });

  test("a counter read from its owner's total is set by its collect, before each scrape", async () => {
    let total = 2;
    const counter = new SeriesCounter("outage_seconds_total", "Outage.", [], (self) => {
      self.reset();
      self.inc({}, total);
    });
    expect(samples(await scrape(counter))).toEqual(["outage_seconds_total{} 2"]);
    total = 3.5;
    expect(samples(await scrape(counter))).toEqual(["outage_seconds_total{} 3.5"]);
  });
});
