/**
 * The catalogue: no-ops while off, read-at-scrape gauges and counters summed
 * over their sources and let go of, and the status classes requests are
 * counted by. Metrics are turned on once per process and for good (other
 * test files in this process do), so each case runs in a fresh child process
 * of its own, on or off as it needs.
 */
import { describe, expect, test } from "bun:test";
import { fileURLToPath } from "node:url";
import { samples, sample } from "../../test/helpers/prometheus.ts";
import { statusClass } from "./metrics.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** Runs `code` (with `m`, this module) in a fresh process; what it wrote to stdout. */
function inChild(code: string): string {
  const child = Bun.spawnSync([process.execPath, "-e", `const m = await import("./src/observe/metrics.ts");\n${code}`], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (child.exitCode !== 0) throw new Error(child.stderr.toString());
  return child.stdout.toString();
}

describe("off", () => {
  // In a child too: other test files in this process (weak-gauge, run-metrics) turn metrics on for good.
  test("every member of the catalogue is one shared no-op, and the scrape is empty", () => {
    const out = inChild(`
      const members = Object.values(m.metrics);
      m.metrics.runsStarted.inc({ kind: "search" });
      m.metrics.httpDuration.observe({ route: "/v1/search", method: "POST", status_class: "2xx" }, 0.1);
      console.log(JSON.stringify({ enabled: m.metricsEnabled(), members: members.length, distinct: new Set(members).size, scrape: await m.renderMetrics() }));
    `);
    const off = JSON.parse(out) as { enabled: boolean; members: number; distinct: number; scrape: unknown };
    expect(off.enabled).toBe(false);
    expect(off.members).toBeGreaterThan(20);
    // One object for all: counting with metrics off allocates nothing and touches no registry.
    expect(off.distinct).toBe(1);
    expect(off.scrape).toEqual({ text: "", contentType: "text/plain; version=0.0.4; charset=utf-8" });
  });
});

describe("on", () => {
  test("a gauge read at scrape sums its sources by labels, and a source let go of is no longer read", () => {
    const out = inChild(`
      m.enableMetrics();
      const scrape = async () => (await m.renderMetrics()).text;
      const a = m.gaugeFrom("open_streams", () => 2, { kind: "sse" });
      m.gaugeFrom("open_streams", () => 3, { kind: "sse" });
      m.gaugeFrom("open_streams", () => 1, { kind: "websocket" });
      let reads = 0;
      m.gaugeFrom("usage_outbox_depth", () => ++reads);
      const first = await scrape();
      a();
      const second = await scrape();
      console.log(JSON.stringify({ first, second }));
    `);
    const { first, second } = JSON.parse(out) as { first: string; second: string };
    const name = "agentic_search_open_streams";
    expect(sample(samples(first), name, { kind: "sse" })?.value).toBe(5);
    expect(sample(samples(first), name, { kind: "websocket" })?.value).toBe(1);
    expect(sample(samples(second), name, { kind: "sse" })?.value).toBe(3);
    // Asked at each scrape, not remembered.
    expect(sample(samples(first), "agentic_search_usage_outbox_depth")?.value).toBe(1);
    expect(sample(samples(second), "agentic_search_usage_outbox_depth")?.value).toBe(2);
  });

  test("a counter read at scrape gives its sources' totals, and the catalogue's counters and histograms count, a histogram's count its counter's", () => {
    const out = inChild(`
      m.enableMetrics();
      let seconds = 1.5;
      m.counterFrom("limiter_store_outage_seconds_total", () => seconds);
      m.counterFrom("limiter_store_outage_seconds_total", () => 1);
      const first = (await m.renderMetrics()).text;
      seconds = 4;
      m.metrics.runsStarted.inc({ kind: "search" });
      m.metrics.runsStarted.inc({ kind: "search" }, 2);
      m.metrics.httpDuration.observe({ route: "/v1/search", method: "POST", status_class: m.statusClass(201) }, 0.3);
      m.metrics.httpDuration.observe({ route: "/v1/search", method: "POST", status_class: m.statusClass(200) }, 0.01);
      m.metrics.httpDuration.observe({ route: "/v1/search", method: "POST", status_class: "4xx" }, 0.01);
      m.metrics.pageReadDuration.observe({ outcome: "cached" }, 0.001);
      const second = (await m.renderMetrics()).text;
      console.log(JSON.stringify({ first, second }));
    `);
    const { first, second } = JSON.parse(out) as { first: string; second: string };
    const outage = "agentic_search_limiter_store_outage_seconds_total";
    expect(sample(samples(first), outage)?.value).toBe(2.5);
    expect(sample(samples(second), outage)?.value).toBe(5);
    expect(sample(samples(second), "agentic_search_runs_started_total", { kind: "search" })?.value).toBe(3);
    const labels = { route: "/v1/search", method: "POST", status_class: "2xx" };
    expect(sample(samples(second), "agentic_search_http_request_duration_seconds_count", labels)?.value).toBe(2);
    expect(sample(samples(second), "agentic_search_http_request_duration_seconds_bucket", { ...labels, le: "0.25" })?.value).toBe(1);
    expect(sample(samples(second), "agentic_search_http_request_duration_seconds_bucket", { ...labels, le: "0.5" })?.value).toBe(2);
    // The requests' counter is the histogram's count, series by series, and a counter in the scrape.
    expect(sample(samples(second), "agentic_search_http_requests_total", labels)?.value).toBe(2);
    expect(sample(samples(second), "agentic_search_http_requests_total", { ...labels, status_class: "4xx" })?.value).toBe(1);
    expect(second).toContain("# TYPE agentic_search_http_requests_total counter\n");
    expect(sample(samples(first), "agentic_search_http_requests_total")).toBeUndefined();
    expect(sample(samples(second), "agentic_search_page_reads_total", { outcome: "cached" })?.value).toBe(1);
    expect(sample(samples(second), "agentic_search_runs_finished_total")).toBeUndefined();
  });
});

test("statusClass: the status's hundred, and `other` outside 100 to 599", () => {
  expect([100, 200, 204, 301, 404, 429, 500, 599].map(statusClass)).toEqual(["1xx", "2xx", "2xx", "3xx", "4xx", "4xx", "5xx", "5xx"]);
  expect([0, 99, 600, -1].map(statusClass)).toEqual(["other", "other", "other", "other"]);
});
