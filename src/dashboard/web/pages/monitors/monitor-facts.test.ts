import { describe, expect, test } from "bun:test";
import { newId } from "../../../../ids.ts";
import { changeSummary } from "./RunChanges.tsx";
import { askedOf, scheduleWords, timeOfId } from "./monitor-facts.ts";

describe("a monitor in words", () => {
  test("an interval reads in the largest whole unit; a cron as given, in UTC", () => {
    expect(scheduleWords({ every_minutes: 1 })).toBe("Every minute");
    expect(scheduleWords({ every_minutes: 15 })).toBe("Every 15 minutes");
    expect(scheduleWords({ every_minutes: 90 })).toBe("Every 90 minutes");
    expect(scheduleWords({ every_minutes: 60 })).toBe("Every hour");
    expect(scheduleWords({ every_minutes: 120 })).toBe("Every 2 hours");
    expect(scheduleWords({ every_minutes: 1440 })).toBe("Every day");
    expect(scheduleWords({ every_minutes: 10080 })).toBe("Every 7 days");
    // An operator may allow less than a minute (a test's setting).
    expect(scheduleWords({ every_minutes: 0.05 })).toBe("Every 3 seconds");
    expect(scheduleWords({ cron: "0 9 * * 1" })).toBe("Cron 0 9 * * 1 (UTC)");
  });

  test("what it asks: a search's prompt, or the endpoint it calls", () => {
    expect(askedOf({ kind: "search", endpoint: null, request: { prompt: "Who won?" } })).toBe("Who won?");
    expect(askedOf({ kind: "endpoint", endpoint: "prices", request: { endpoint: "prices", inputs: {} } })).toBe("Endpoint prices");
    expect(askedOf({ kind: "published", endpoint: "acme-prices", request: { published: "acme-prices", inputs: {} } })).toBe(
      "Published acme-prices",
    );
  });

  test("a task's id says when it was made, to the millisecond; anything else is no time", () => {
    const made = Date.UTC(2026, 10, 27, 8, 9, 10, 123);
    expect(timeOfId(newId("task", made))).toBe(new Date(made).toISOString());
    expect(timeOfId("task_short")).toBeNull();
    expect(timeOfId("task_UUUUUUUUUUxxxxxxxxxxxxxxxx")).toBeNull();
  });

  test("a run's answer: first, unchanged, changed, or not compared (yet, or ever)", () => {
    expect(changeSummary({ status: "succeeded", monitor: { compared: false, changed: false, changes: null } })).toBe("First answer");
    expect(changeSummary({ status: "succeeded", monitor: { compared: true, changed: false, changes: null } })).toBe("No change");
    const changes = { kind: "fields" as const, fields: [{ path: "a", before: 1, after: 2 }] };
    expect(changeSummary({ status: "succeeded", monitor: { compared: true, changed: true, changes } })).toBe("Changed");
    expect(changeSummary({ status: "succeeded", monitor: null })).toBe("Not compared");
    expect(changeSummary({ status: "running", monitor: null })).toBe("—");
  });
});
