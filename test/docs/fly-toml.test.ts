/**
 * fly.toml's numbers follow from the service's own settings, so a change to
 * either that breaks a deploy fails here instead of in production: the
 * proxy's concurrency limits are the run queue's (read with the config's own
 * parser, on the machine size fly.toml asks for), Fly waits longer than the
 * whole drain before it kills a machine, and the drain grace outlasts the
 * health checks that take a draining machine out of the proxy's rotation.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { EnvSchema, loadConfig } from "../../src/config.ts";

interface FlyToml {
  kill_signal?: string;
  kill_timeout?: string | number;
  deploy?: { strategy?: string; max_unavailable?: number };
  env?: Record<string, string>;
  http_service: {
    min_machines_running?: number;
    concurrency: { type: string; soft_limit: number; hard_limit: number };
    checks?: { path: string; method?: string; interval: string; timeout: string }[];
  };
  vm: { size?: string; cpus?: number; memory?: string }[];
  metrics?: { port: number; path: string };
  services?: { internal_port: number }[];
}

const fly = Bun.TOML.parse(readFileSync(new URL("../../fly.toml", import.meta.url), "utf8")) as FlyToml;
const env = fly.env ?? {};

/** Fly's durations: "45s", "1m30s", "500ms"; a bare number of kill_timeout is seconds. */
function milliseconds(value: string | number | undefined, what: string): number {
  if (typeof value === "number") return value * 1000;
  const parts = [...(value ?? "").matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (!parts.length || parts.map((p) => p[0]).join("") !== value) throw new Error(`${what}: cannot read the duration ${value}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
  return parts.reduce((sum, [, amount, u]) => sum + Number(amount) * unit[u as keyof typeof unit], 0);
}

/** The machine fly.toml asks for: its CPUs (shared-cpu-2x has 2) and memory ("512mb", "1gb"). */
function machine(): { cpus: number; memoryBytes: number } {
  const vm = fly.vm[0]!;
  const cpus = vm.cpus ?? Number(/-(\d+)x$/.exec(vm.size ?? "")?.[1]);
  const [, amount, unit] = /^(\d+)(mb|gb)$/i.exec(vm.memory ?? "") ?? [];
  if (!cpus || !amount) throw new Error(`cannot read the machine size from ${JSON.stringify(vm)}`);
  return { cpus, memoryBytes: Number(amount) * 1024 ** (unit!.toLowerCase() === "gb" ? 3 : 2) };
}

// The service as fly.toml runs it: its [env] on its machine, parsed as the server parses its environment.
const config = loadConfig(env, machine());
/** Server processes per machine (WEB_CONCURRENCY; its default is one per CPU on Postgres). */
const workers = Number(env.WEB_CONCURRENCY ?? machine().cpus);
const readyCheck = fly.http_service.checks?.find((check) => check.path === "/readyz");
const drainGraceDefault = (EnvSchema.properties as Record<string, { default?: unknown }>).DRAIN_GRACE_MS?.default;
/** How long a draining instance keeps serving while the proxy notices it is not ready; absent before the drain grace exists. */
const drainGraceMs = env.DRAIN_GRACE_MS ? Number(env.DRAIN_GRACE_MS) : (drainGraceDefault as number | undefined);

describe("fly.toml", () => {
  test("runs two or more machines, deploys them one at a time, sends SIGTERM, and routes only to machines whose /readyz answers", () => {
    expect(fly.http_service.min_machines_running).toBeGreaterThanOrEqual(2);
    expect(fly.deploy).toMatchObject({ strategy: "rolling", max_unavailable: 1 });
    expect(fly.kill_signal).toBe("SIGTERM");
    // Service checks (http_service.checks) are what Fly's proxy routes by; top-level [checks] are not.
    expect(readyCheck).toMatchObject({ method: "GET", path: "/readyz" });
  });

  test("the proxy's soft limit is a machine's run slots, its hard limit the runs it can hold (slots and queue)", () => {
    const { concurrency, queueMax } = config.runs;
    expect(fly.http_service.concurrency.type).toBe("requests");
    expect(fly.http_service.concurrency.soft_limit).toBe(workers * concurrency);
    expect(fly.http_service.concurrency.hard_limit).toBe(workers * (concurrency + queueMax));
    // A waiting run counts against its deadline: the queue drains within it at a few seconds a run.
    expect((queueMax / concurrency) * 3_000).toBeLessThan(config.search.deadlineMs);
  });

  test("Fly waits longer than the whole drain (grace, then SHUTDOWN_TIMEOUT_MS) before it kills a machine", () => {
    const killTimeoutMs = milliseconds(fly.kill_timeout, "kill_timeout");
    expect(killTimeoutMs).toBeGreaterThan((drainGraceMs ?? 0) + config.shutdownTimeoutMs);
    // Fly allows at most five minutes.
    expect(killTimeoutMs).toBeLessThanOrEqual(300_000);
  });

  test.skipIf(drainGraceMs === undefined)(
    "the drain grace outlasts two /readyz checks: a draining machine leaves the rotation before it stops accepting",
    () => {
      expect(drainGraceMs).toBeGreaterThan(2 * milliseconds(readyCheck!.interval, "the /readyz check's interval"));
    },
  );

  test("Fly scrapes the metrics port the service serves, and no service exposes it", () => {
    expect(config.metrics?.port).toBeDefined();
    expect(fly.metrics).toEqual({ port: config.metrics!.port, path: "/metrics" });
    // One process per machine here: with more, worker N serves METRICS_PORT + N - 1, and each would need a [[metrics]].
    expect(workers).toBe(1);
    const exposed = [fly.http_service as { internal_port?: number }, ...(fly.services ?? [])].map((s) => s.internal_port);
    expect(exposed).not.toContain(config.metrics!.port);
  });
});
