import { describe, expect, test } from "bun:test";
import { InvalidInput } from "../errors.ts";
import { checkSchedule, nextRunAt } from "./monitor-schedule.ts";

/** The message of the 422 a bad schedule is refused with. */
function refusal(raw: unknown, min = 5): string {
  try {
    checkSchedule(raw, min);
  } catch (error) {
    if (error instanceof InvalidInput) return JSON.stringify(error.issues);
    throw error;
  }
  throw new Error(`${JSON.stringify(raw)} was accepted`);
}

describe("checkSchedule", () => {
  test("an interval at least the minimum, and crons of 5 or 6 fields or an alias, are taken (trimmed)", () => {
    expect(checkSchedule({ every_minutes: 5 }, 5)).toEqual({ every_minutes: 5 });
    expect(checkSchedule({ cron: " */5 * * * * " }, 5)).toEqual({ cron: "*/5 * * * *" });
    expect(checkSchedule({ cron: "0 0 9 * * 1" }, 5)).toEqual({ cron: "0 0 9 * * 1" });
    expect(checkSchedule({ cron: "@daily" }, 5)).toEqual({ cron: "@daily" });
  });

  test("what is refused says why", () => {
    expect(refusal({ every_minutes: 4 })).toContain("at least 5");
    expect(refusal({ every_minutes: Number.NaN })).toContain("must be a number");
    expect(refusal({ cron: "*/4 * * * *" })).toContain("more often");
    // Close firings once a day are still too close.
    expect(refusal({ cron: "0,1 9 * * *" })).toContain("more often");
    expect(refusal({ cron: "61 * * * *" })).toContain("cron is not valid");
    expect(refusal({ cron: "1 2 3" })).toContain("5 fields");
    expect(refusal({ cron: "" })).toContain("5 fields");
    expect(refusal({ cron: "0 0 31 2 *" })).toContain("cron");
    expect(refusal({ cron: 5 })).toContain("string");
    expect(refusal({ every_minutes: 5, cron: "@daily" })).toContain("exactly one");
    expect(refusal({})).toContain("exactly one");
    expect(refusal([{ every_minutes: 5 }])).toContain("schedule must be");
    expect(refusal("@daily")).toContain("schedule must be");
  });
});

describe("nextRunAt", () => {
  const now = new Date("2026-11-27T07:31:20Z");

  test("an interval: at once the first time, then N minutes after now", () => {
    expect(nextRunAt({ every_minutes: 10 }, now, true)).toEqual(now);
    expect(nextRunAt({ every_minutes: 10 }, now)).toEqual(new Date("2026-11-27T07:41:20Z"));
  });

  test("a cron: its next time after now, in UTC, the first time too", () => {
    expect(nextRunAt({ cron: "*/15 * * * *" }, now, true)).toEqual(new Date("2026-11-27T07:45:00Z"));
    expect(nextRunAt({ cron: "0 9 * * 1" }, now)).toEqual(new Date("2026-11-30T09:00:00Z"));
  });
});
