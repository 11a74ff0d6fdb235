/** The recent run times on their own: nothing before a run ends, then a mean and a slow run over a moving window. */
import { describe, expect, test } from "bun:test";
import { RecentRunTimes } from "./run-times.ts";

describe("recent run times", () => {
  test("no estimate before a run has ended", () => {
    expect(new RecentRunTimes().estimate()).toBeUndefined();
  });

  test("the mean and the slow run (90th percentile) of the runs in the window", () => {
    const times = new RecentRunTimes(10);
    for (const ms of [100, 200, 300, 400, 500, 600, 700, 800, 900, 5_000]) times.add(ms);
    expect(times.estimate()).toEqual({ meanMs: 950, slowMs: 900 });
    times.add(100);
    // The oldest run (100 ms) left the window; the newest took its place.
    expect(times.estimate()).toEqual({ meanMs: 950, slowMs: 900 });
  });

  test("the window moves: runs older than its last `window` no longer count", () => {
    const times = new RecentRunTimes(4);
    for (let i = 0; i < 4; i++) times.add(10_000);
    expect(times.estimate()).toEqual({ meanMs: 10_000, slowMs: 10_000 });
    times.add(2_000);
    expect(times.estimate()).toEqual({ meanMs: 8_000, slowMs: 10_000 });
    for (let i = 0; i < 3; i++) times.add(2_000);
    expect(times.estimate()).toEqual({ meanMs: 2_000, slowMs: 2_000 });
  });
});
