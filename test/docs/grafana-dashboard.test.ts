/**
 * The Grafana dashboard (docs/operate/grafana-dashboard.json) reads only
 * metrics the service exports: a renamed or removed metric fails here, not
 * as an empty panel in an operator's Grafana. The names are the registry's
 * own, rendered in this process with metrics on (the catalogue and
 * prom-client's process metrics), a histogram's _bucket, _sum and _count
 * series counted as its own.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { enableMetrics, renderMetrics } from "../../src/observe/metrics.ts";

interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: { expr: string; refId: string }[];
  panels?: Panel[];
  gridPos: { h: number; w: number; x: number; y: number };
}
interface Dashboard {
  schemaVersion: number;
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: unknown }[] };
}

const dashboard = JSON.parse(readFileSync(new URL("../../docs/operate/grafana-dashboard.json", import.meta.url), "utf8")) as Dashboard;
/** Every panel, those inside collapsed rows included. */
const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
const queries = panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })));

/** Series names the registry renders: every metric's, and a histogram's or summary's parts. */
async function exportedSeries(): Promise<Set<string>> {
  enableMetrics();
  const { text } = await renderMetrics();
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === "histogram") for (const part of ["_bucket", "_sum", "_count"]) names.add(name + part);
    if (type === "summary") for (const part of ["_sum", "_count"]) names.add(name + part);
  }
  return names;
}

/** The metric selectors of a PromQL expression: a name right before `{` (functions and `by` are followed by `(`). */
function selectors(expr: string): { name: string; matchers: string }[] {
  return [...expr.matchAll(/([A-Za-z_:][A-Za-z0-9_:]*)\{([^}]*)\}/g)].map((m) => ({ name: m[1]!, matchers: m[2]! }));
}

describe("the Grafana dashboard", () => {
  test("is a dashboard model Grafana imports: schema, uid, a Prometheus data source variable and an instance variable", () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.uid).toMatch(/^[\w-]{1,40}$/);
    const variables = new Map(dashboard.templating.list.map((v) => [v.name, v]));
    expect(variables.get("datasource")).toMatchObject({ type: "datasource", query: "prometheus" });
    expect(variables.get("instance")?.type).toBe("query");
  });

  test("every panel has an id of its own, a title, and its queries the data source variable", () => {
    const ids = panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of panels) {
      expect(Number.isInteger(panel.id)).toBe(true);
      expect(panel.title.trim()).not.toBe("");
      if (panel.type !== "row") {
        expect(panel.targets?.length).toBeGreaterThan(0);
        expect(panel.datasource?.uid).toBe("${datasource}");
      }
    }
    expect(panels.filter((panel) => panel.type !== "row").length).toBeGreaterThan(20);
  });

  test("its rows are the golden signals, research runs, providers, the limiter and background work", () => {
    const rows = panels.filter((panel) => panel.type === "row").map((panel) => panel.title);
    expect(rows).toEqual([
      "Golden signals",
      "Research runs",
      "Providers and page reads",
      "Rate limiter",
      "Queue, streams and background work",
    ]);
  });

  test("every metric a query reads is one the service exports, and every selector follows the instance variable", async () => {
    const exported = await exportedSeries();
    expect(exported.has("agentic_search_http_request_duration_seconds_bucket")).toBe(true);
    const unknown: string[] = [];
    let read = 0;
    for (const { panel, expr } of queries) {
      const found = selectors(expr);
      expect(found.length).toBeGreaterThan(0);
      for (const { name, matchers } of found) {
        read++;
        if (!exported.has(name)) unknown.push(`${panel}: ${name}`);
        expect(matchers).toContain('instance=~"$instance"');
      }
    }
    expect(unknown).toEqual([]);
    expect(read).toBeGreaterThan(30);
  });

  test("every metric of the catalogue has a panel", async () => {
    const read = new Set(queries.flatMap(({ expr }) => selectors(expr).map((s) => s.name.replace(/_(bucket|sum|count)$/, ""))));
    const catalogue = [...(await exportedSeries())].filter(
      // An _info gauge (the runtime's version) labels the process; it is not a signal to chart.
      (name) => name.startsWith("agentic_search_") && !/_(bucket|sum|count|info)$/.test(name),
    );
    expect(catalogue.filter((name) => !read.has(name))).toEqual([]);
  });
});
