/**
 * What the runtime says of itself, beside prom-client's process metrics, on
 * Bun. prom-client's RSS, CPU, file descriptors, event-loop lag and heap
 * gauges all work on Bun (the heap ones read JSC's heap through Bun's
 * node:v8 and process.memoryUsage(): nodejs_heap_size_used_bytes is
 * bun:jsc's heapSize()). Its GC histogram does not: it observes perf_hooks
 * `gc` entries, which Bun never emits (PerformanceObserver.supportedEntryTypes
 * has no "gc"; a forced Bun.gc(true) delivers none), so it would be a
 * histogram that never has a sample, read as "no GC". It is taken out where
 * the runtime has no such entries, and stays where it has them.
 *
 * Bun exposes no GC count or pause time (bun:jsc has heapStats(), whose
 * per-type object census walks the heap, 27 ms for 300,000 objects: too dear
 * to run at every scrape, and it counts no collections either). Its version
 * is here: nodejs_version_info says which Node version Bun claims to be.
 */
import { PerformanceObserver } from "node:perf_hooks";
import { Gauge, type Registry } from "prom-client";

const PREFIX = "agentic_search_";

export function runtimeMetrics(registry: Registry): void {
  const bun = typeof Bun === "undefined" ? undefined : Bun.version;
  const entryTypes = (PerformanceObserver as unknown as { supportedEntryTypes?: readonly string[] }).supportedEntryTypes ?? [];
  if (!entryTypes.includes("gc")) registry.removeSingleMetric("nodejs_gc_duration_seconds");
  // On Bun, node:v8's getHeapSpaceStatistics() walks the whole heap: 25 ms with 300,000 objects, measured, and some
  // 50 ms a scrape in a server holding PGlite. Scraped every 15 s that is a stall a request can land in, so the
  // per-space gauges go; the heap's size and use stay (nodejs_heap_size_*_bytes, from process.memoryUsage(): 10 µs).
  if (bun)
    for (const name of [
      "nodejs_heap_space_size_total_bytes",
      "nodejs_heap_space_size_used_bytes",
      "nodejs_heap_space_size_available_bytes",
    ])
      registry.removeSingleMetric(name);
  new Gauge({
    name: `${PREFIX}runtime_info`,
    help: "The runtime this process runs on (bun or node) and its version; always 1.",
    labelNames: ["runtime", "version"],
    registers: [registry],
  }).set({ runtime: bun ? "bun" : "node", version: bun ?? process.versions.node }, 1);
}
