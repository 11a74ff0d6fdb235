import { expect, test } from "bun:test";
import { createLogger, redact } from "./log.ts";

test("redact removes keys, bearer tokens and URL passwords", () => {
  expect(redact("key sk_live_AbC123xyz and sk_live_Q0X4hQzVkpnqRiOXm6ZW3D5TC1xRTn024ogrRKB84EoM9U")).toBe("key sk_[redacted] and sk_[redacted]");
  expect(redact("Authorization: Bearer abc.def-ghi")).toBe("Authorization: Bearer [redacted]");
  expect(redact("postgres://user:hunter2@db:5432/x")).toBe("postgres://user:[redacted]@db:5432/x");
});

test("log lines are JSON with no stack traces, nested secrets redacted", () => {
  const lines: string[] = [];
  const log = createLogger({ level: "info", sink: (l) => lines.push(l), base: { service: "t" } });
  log.debug("hidden");
  log.error("failed", { error: new Error("boom sk_live_secret1"), nested: { url: "redis://:pw@h:6379" } });
  expect(lines.length).toBe(1);
  const record = JSON.parse(lines[0]!);
  expect(record).toMatchObject({ level: "error", msg: "failed", service: "t", error: { name: "Error", message: "boom sk_[redacted]" }, nested: { url: "redis://:[redacted]@h:6379" } });
  expect(lines[0]).not.toContain("at ");
});
