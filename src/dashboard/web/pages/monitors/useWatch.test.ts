import { describe, expect, test } from "bun:test";
import type { Monitor, MonitorRun } from "../../model.ts";
import { watchOf } from "./useWatch.ts";

const now = Date.UTC(2026, 10, 27, 9);
const at = (ms: number) => new Date(now + ms).toISOString();
const monitor = (fields: Partial<Monitor> = {}): Monitor => ({
  id: "mon_01",
  object: "monitor",
  status: "active",
  kind: "search",
  endpoint: null,
  request: { prompt: "Who won?" },
  schedule: { every_minutes: 60 },
  webhook: { url: "https://hooks.example.com/x" },
  metadata: null,
  next_run_at: at(3_600_000),
  last_run: null,
  created_at: at(-60_000),
  updated_at: at(-60_000),
  ...fields,
});
const run = (id: string, fields: Partial<MonitorRun> = {}): MonitorRun => ({
  id,
  status: "succeeded",
  kind: "search",
  endpoint: null,
  metadata: null,
  webhook: null,
  attempts: 1,
  created_at: at(-20_000),
  started_at: at(-20_000),
  finished_at: at(-10_000),
  result: null,
  error: null,
  monitor: { compared: false, changed: false, changes: null },
  ...fields,
});
const none = { runs: false, monitor: false };

describe("what a monitor's page reads again", () => {
  test("nothing once its runs have settled and the monitor names the last answer", () => {
    expect(watchOf(monitor({ last_run: { task_id: "task_2" } }), [run("task_2"), run("task_1")], false, now)).toEqual(none);
  });

  test("the runs while one is queued or running, or the next is due within a minute (and not long overdue)", () => {
    expect(watchOf(monitor(), [run("task_1", { status: "running", finished_at: null, monitor: null })], false, now)).toEqual({
      runs: true,
      monitor: false,
    });
    expect(watchOf(monitor({ next_run_at: at(-1000) }), [], false, now)).toEqual({ runs: true, monitor: false });
    expect(watchOf(monitor({ next_run_at: at(30_000), last_run: { task_id: "task_1" } }), [run("task_1")], false, now)).toEqual({
      runs: true,
      monitor: false,
    });
    expect(watchOf(monitor(), [], false, now)).toEqual(none);
    expect(watchOf(monitor({ status: "paused", next_run_at: at(-1000) }), [], false, now)).toEqual(none);
    expect(watchOf(monitor({ next_run_at: at(-6 * 60_000) }), [], false, now)).toEqual(none);
  });

  test("a run just succeeded: the runs until its comparison is in, then the monitor until it names it", () => {
    expect(watchOf(monitor(), [run("task_1", { monitor: null })], false, now)).toEqual({ runs: true, monitor: false });
    expect(watchOf(monitor(), [run("task_1")], false, now)).toEqual({ runs: false, monitor: true });
    // Half a minute on, a comparison that never came is no longer waited for.
    expect(watchOf(monitor(), [run("task_1", { monitor: null, finished_at: at(-31_000) })], false, now)).toEqual(none);
  });

  test("nothing while more than the first page is shown, nor before the runs are read", () => {
    expect(watchOf(monitor(), [run("task_1", { status: "queued", monitor: null })], true, now)).toEqual(none);
    expect(watchOf(monitor(), null, false, now)).toEqual(none);
  });
});
