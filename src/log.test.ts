import { expect, test } from "bun:test";
import { ManualClock } from "./clock.ts";
import { createLogger, redact, throttledWarn } from "./log.ts";

test("redact removes keys, bearer tokens and URL passwords", () => {
  expect(redact("key sk_live_AbC123xyz and sk_live_Q0X4hQzVkpnqRiOXm6ZW3D5TC1xRTn024ogrRKB84EoM9U")).toBe(
    "key sk_[redacted] and sk_[redacted]",
  );
  expect(redact("Authorization: Bearer abc.def-ghi")).toBe("Authorization: Bearer [redacted]");
  // A key glued to a word is still a key's shape only at a word's start: a task's id is no secret, and stays readable.
  expect(redact("task task_01m8e0gx7ecsvh3z7myfydyytx ran")).toBe("task task_01m8e0gx7ecsvh3z7myfydyytx ran");
  expect(redact('{"key":"sk_live_AbC123"}')).toBe('{"key":"sk_[redacted]"}');
  expect(redact("postgres://user:hunter2@db:5432/x")).toBe("postgres://user:[redacted]@db:5432/x");
});

test("log lines are JSON with no stack traces, nested secrets redacted", () => {
  const lines: string[] = [];
  const log = createLogger({ level: "info", sink: (l) => lines.push(l), base: { service: "t" } });
  log.debug("hidden");
  log.error("failed", { error: new Error("boom sk_live_secret1"), nested: { url: "redis://:pw@h:6379" } });
  expect(lines.length).toBe(1);
  const record = JSON.parse(lines[0]!);
  expect(record).toMatchObject({
    level: "error",
    msg: "failed",
    service: "t",
    error: { name: "Error", message: "boom sk_[redacted]" },
    nested: { url: "redis://:[redacted]@h:6379" },
  });
  expect(lines[0]).not.toContain("at ");
});

test("throttledWarn logs a repeating failure once per interval, then says how many it skipped", () => {
  const lines: string[] = [];
  const clock = new ManualClock();
  const warn = throttledWarn(createLogger({ level: "info", sink: (line) => lines.push(line) }), 10_000, clock);
  for (let i = 0; i < 5; i++) warn("stamp failed", { n: i });
  warn("other failure");
  expect(lines.map((l) => JSON.parse(l).msg)).toEqual(["stamp failed", "other failure"]);
  clock.advance(9_999);
  warn("stamp failed");
  expect(lines.length).toBe(2);
  clock.advance(1);
  warn("stamp failed");
  expect(lines.length).toBe(3);
  expect(JSON.parse(lines.at(-1)!)).toMatchObject({ level: "warn", msg: "stamp failed", skipped: 5 });
});

test("a worker's number is written last on every line, its children's too", () => {
  const lines: string[] = [];
  const log = createLogger({ level: "info", sink: (l) => lines.push(l), origin: { worker: 2 } });
  log.info("listening", { url: "http://127.0.0.1:3000" });
  log.child({ request_id: "req_1" }).warn("slow", { ms: 5 });
  expect(lines[0]).toMatch(/^\{"time":"[^"]+","level":"info","msg":"listening","url":"http:\/\/127\.0\.0\.1:3000","worker":2\}$/);
  expect(JSON.parse(lines[1]!)).toEqual({ time: expect.any(String), level: "warn", msg: "slow", request_id: "req_1", ms: 5, worker: 2 });
});
