import { expect, test } from "bun:test";
import { enableMetrics, renderMetrics } from "./metrics.ts";
import { gaugeOf } from "./weak-gauge.ts";

test("a gauge reads its object while it lives, and neither keeps it alive nor reads it once it is gone", async () => {
  enableMetrics();
  let reads = 0;
  const register = () => {
    // Queued runs is a gauge read at scrape: this object's reading joins (sums with) any others'.
    gaugeOf({ queued: 1000 }, "runs_queued", (owner) => {
      reads++;
      return owner.queued;
    });
  };
  register();
  const first = await renderMetrics();
  expect(reads).toBe(1);
  expect(Number(/agentic_search_runs_queued (\d+)/.exec(first.text)?.[1])).toBeGreaterThanOrEqual(1000);
  // Let go of: after a collection (a WeakRef's target survives the job that made it) it is no longer read.
  for (let i = 0; i < 3; i++) {
    await Bun.sleep(1);
    Bun.gc(true);
  }
  const last = await renderMetrics();
  await renderMetrics();
  expect(reads).toBe(1);
  expect(Number(/agentic_search_runs_queued (\d+)/.exec(last.text)?.[1] ?? 0)).toBeLessThan(1000);
});
