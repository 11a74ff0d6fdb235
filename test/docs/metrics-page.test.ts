/**
 * docs/operate/metrics.md lists every metric the service exports, and names
 * none that it does not: the catalogue is read from a scrape of a process
 * with metrics on (a child, so this test process keeps them off), each
 * metric from its `# TYPE` line, whether it has a sample yet or not.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { root } from "../helpers/process.ts";
import { types } from "../helpers/prometheus.ts";

const page = readFileSync(new URL("../../docs/operate/metrics.md", import.meta.url), "utf8");

/** What a process with metrics on exports. */
function catalogue(): Map<string, string> {
  const child = Bun.spawnSync(
    [
      process.execPath,
      "-e",
      'const m = await import("./src/observe/metrics.ts"); m.enableMetrics(); process.stdout.write((await m.renderMetrics()).text);',
    ],
    { cwd: root, stdout: "pipe", stderr: "pipe" },
  );
  if (child.exitCode !== 0) throw new Error(child.stderr.toString());
  return types(child.stdout.toString());
}

const exported = catalogue();
/** Metrics the page names only to say they are not exported (on this runtime). */
const ABSENT = [
  "nodejs_gc_duration_seconds",
  "nodejs_heap_space_size_total_bytes",
  "nodejs_heap_space_size_used_bytes",
  "nodejs_heap_space_size_available_bytes",
];
const HISTOGRAM_SERIES = /_(bucket|sum|count)$/;

describe("docs/operate/metrics.md", () => {
  test("lists every metric exported, each in its table with its type", () => {
    expect(exported.size).toBeGreaterThan(50);
    const rows = [...page.matchAll(/^\| (.+?) \| (counter|gauge|histogram) \|/gm)];
    const listed = new Map<string, string>();
    for (const [, names, type] of rows) for (const [, name] of names!.matchAll(/`([a-z0-9_]+)`/g)) listed.set(name!, type!);
    const missing = [...exported].filter(([name, type]) => listed.get(name) !== type).map(([name, type]) => `${name} (${type})`);
    expect(missing).toEqual([]);
  });

  test("names no metric that does not exist, in its tables, its prose or its PromQL", () => {
    const named = new Set([...page.matchAll(/\b((?:agentic_search|process|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1]!));
    const unknown = [...named].filter((name) => {
      if (exported.has(name) || ABSENT.includes(name)) return false;
      const base = name.replace(HISTOGRAM_SERIES, "");
      return exported.get(base) !== "histogram";
    });
    expect(unknown).toEqual([]);
    for (const name of ABSENT) expect(exported.has(name)).toBe(false);
  });
});
