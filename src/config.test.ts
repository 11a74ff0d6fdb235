import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { ConfigError, describeEnvironment, loadConfig } from "./config.ts";

const problems = (env: Record<string, string>) => {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
};

describe("the environment", () => {
  test("empty gives the embedded defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      dataDir: "./.data",
      database: { url: undefined },
      logLevel: "info",
      maxBodyBytes: 10_485_760,
    });
    expect(config.rateLimit).toMatchObject({ redisUrl: undefined, upstash: undefined, failMode: "open" });
  });

  test("values are converted to their types", () => {
    const config = loadConfig({
      PORT: "8080",
      RATE_LIMIT_FAIL_MODE: "closed",
      PEAK_FREE_REFILL_FACTOR: "0.5",
      DATABASE_URL: "postgres://u:p@db:5432/x",
      PUBLIC_BASE_URL: "https://api.example.com/",
    });
    expect(config.port).toBe(8080);
    expect(config.rateLimit.failMode).toBe("closed");
    expect(config.rateLimit.peakFreeRefillFactor).toBe(0.5);
    expect(config.publicBaseUrl).toBe("https://api.example.com");
  });

  test("an empty variable counts as unset", () => {
    expect(loadConfig({ PORT: "", REDIS_URL: " " }).port).toBe(3000);
  });

  test("each bad value is named, all at once", () => {
    const found = problems({ PORT: "70000", LOG_LEVEL: "loud", REDIS_URL: "http://x", RATE_LIMIT_TIMEOUT_MS: "fast" });
    expect(found.map((p) => p.split(" ")[0])).toEqual(["PORT", "REDIS_URL", "RATE_LIMIT_TIMEOUT_MS", "LOG_LEVEL"]);
    expect(found[0]).toContain("<= 65535");
  });

  test("research runs at once: 8 per CPU, 32 with a language model, fewer where half the memory holds fewer at 16 MB a run", () => {
    const GB = 1024 ** 3;
    expect(loadConfig({}, { cpus: 2, memoryBytes: 24 * GB }).runs).toEqual({ concurrency: 16, queueMax: 2_000 });
    const model = { LLM_PROVIDER: "openai", LLM_MODEL: "m", OPENAI_BASE_URL: "http://127.0.0.1:1/v1" };
    expect(loadConfig(model, { cpus: 2, memoryBytes: 24 * GB }).runs.concurrency).toBe(64);
    expect(loadConfig(model, { cpus: 2, memoryBytes: 0.5 * GB }).runs.concurrency).toBe(16);
    expect(loadConfig({}, { cpus: 64, memoryBytes: 16 * 1024 ** 2 }).runs.concurrency).toBe(1);
    expect(loadConfig({ RUN_CONCURRENCY: "3", RUN_QUEUE_MAX: "0" }).runs).toEqual({ concurrency: 3, queueMax: 0 });
    expect(problems({ RUN_CONCURRENCY: "0", RUN_QUEUE_MAX: "-1" }).map((p) => p.split(" ")[0])).toEqual([
      "RUN_CONCURRENCY",
      "RUN_QUEUE_MAX",
    ]);
  });

  test("server processes (WEB_CONCURRENCY): the CPUs with Postgres and a shared limiter, else 1; each counts its share of the machine", () => {
    const GB = 1024 ** 3;
    const fleet = { DATABASE_URL: "postgres://u:p@db:5432/x", REDIS_URL: "redis://r:6379" };
    const host = { cpus: 4, memoryBytes: 16 * GB };
    expect(loadConfig({}, host).web).toEqual({ concurrency: 1, worker: undefined });
    expect(loadConfig({ DATABASE_URL: fleet.DATABASE_URL }, host).web.concurrency).toBe(1);
    expect(loadConfig({ REDIS_URL: fleet.REDIS_URL }, host).web.concurrency).toBe(1);
    expect(loadConfig(fleet, host).web.concurrency).toBe(4);
    const upstash = { DATABASE_URL: fleet.DATABASE_URL, UPSTASH_REDIS_REST_URL: "https://x.upstash.io", UPSTASH_REDIS_REST_TOKEN: "t" };
    expect(loadConfig(upstash, host).web.concurrency).toBe(4);
    expect(loadConfig({ ...fleet, WEB_CONCURRENCY: "1" }, host).web.concurrency).toBe(1);
    expect(loadConfig({ ...fleet, WEB_CONCURRENCY: "2", WEB_WORKER: "2" }, host).web).toEqual({ concurrency: 2, worker: 2 });
    // Four processes on four CPUs run, together, the runs and extraction threads one process would.
    expect(loadConfig(fleet, host).runs.concurrency).toBe(8);
    expect(loadConfig({ ...fleet, WEB_CONCURRENCY: "1" }, host).runs.concurrency).toBe(32);
    expect(loadConfig(fleet, host).extraction.workers).toBe(1);
    expect(loadConfig({ ...fleet, EXTRACT_WORKERS: "3" }, host).extraction.workers).toBe(3);
  });

  test("several processes without Postgres or a shared limiter are refused, saying why", () => {
    expect(problems({ WEB_CONCURRENCY: "2", REDIS_URL: "redis://r:6379" })).toEqual([
      expect.stringMatching(/^WEB_CONCURRENCY=2 needs DATABASE_URL: the embedded database \(PGlite in DATA_DIR\) belongs to one process/),
    ]);
    expect(problems({ WEB_CONCURRENCY: "3", DATABASE_URL: "postgres://db/x" })).toEqual([
      expect.stringMatching(
        /^WEB_CONCURRENCY=3 needs REDIS_URL \(or UPSTASH_REDIS_REST_URL\): .* each process would admit the whole limit/,
      ),
    ]);
    expect(problems({ WEB_CONCURRENCY: "0" })[0]).toStartWith("WEB_CONCURRENCY must be an integer >= 1");
    const fleet = { DATABASE_URL: "postgres://db/x", REDIS_URL: "redis://r:6379", WEB_CONCURRENCY: "2" };
    expect(problems({ ...fleet, WEB_WORKER: "3" })[0]).toStartWith("WEB_WORKER is set only by the supervisor");
  });

  test("the fan-out's quorum: on by default with half the calls, a grace of twice the median within 100 ms and 2 s; a floor above the cap is refused", () => {
    expect(loadConfig({}).search.quorum).toEqual({ enabled: true, share: 0.5, graceFactor: 2, graceMinMs: 100, graceMaxMs: 2_000 });
    expect(loadConfig({ SEARCH_QUORUM: "false", SEARCH_QUORUM_SHARE: "1" }).search.quorum).toMatchObject({ enabled: false, share: 1 });
    expect(problems({ SEARCH_QUORUM_SHARE: "1.5" })[0]).toStartWith("SEARCH_QUORUM_SHARE");
    expect(problems({ SEARCH_GRACE_MIN_MS: "3000" })).toEqual(["SEARCH_GRACE_MIN_MS (3000) must not exceed SEARCH_GRACE_MAX_MS (2000)"]);
  });

  test("Upstash needs both its URL and token, and excludes REDIS_URL", () => {
    expect(problems({ UPSTASH_REDIS_REST_URL: "https://x.upstash.io" })[0]).toContain("set together");
    expect(
      problems({ UPSTASH_REDIS_REST_URL: "https://x.upstash.io", UPSTASH_REDIS_REST_TOKEN: "t", REDIS_URL: "redis://r" })[0],
    ).toContain("choose one");
  });

  test("abuse detection: windows sorted and checked, the action one of three, the client address read from a proxy only when trusted", () => {
    expect(loadConfig({}).abuse).toEqual({
      action: "report",
      windowsSeconds: [60, 600],
      minAccounts: 3,
      hashKey: undefined,
      retentionDays: 30,
    });
    expect(loadConfig({}).clientAddress).toEqual({ trustProxy: false, header: undefined });
    const set = loadConfig({
      ABUSE_WINDOWS_SECONDS: "600, 30,600",
      ABUSE_ACTION: "throttle",
      TRUST_PROXY: "yes",
      CLIENT_IP_HEADER: "X-Real-IP",
    });
    expect(set.abuse).toMatchObject({ action: "throttle", windowsSeconds: [30, 600] });
    expect(set.clientAddress).toEqual({ trustProxy: true, header: "x-real-ip" });
    expect(problems({ ABUSE_WINDOWS_SECONDS: "5,600", ABUSE_ACTION: "ban", ABUSE_MIN_ACCOUNTS: "1", ABUSE_HASH_KEY: "short" })).toEqual([
      expect.stringMatching(/^ABUSE_ACTION must be one of report, throttle, suspend/),
      expect.stringMatching(/^ABUSE_MIN_ACCOUNTS must be an integer >= 2/),
      expect.stringMatching(/^ABUSE_HASH_KEY must be non-empty/),
      "ABUSE_WINDOWS_SECONDS: each window is 10 to 86400 seconds",
    ]);
    expect(problems({ ABUSE_WINDOWS_SECONDS: "1m" })[0]).toStartWith("ABUSE_WINDOWS_SECONDS must be matching");
  });

  test("the configuration reference documents every variable", () => {
    // Written from EnvSchema by `npm run docs`; test/docs/generated.test.ts keeps it current.
    const reference = readFileSync(new URL("../docs/operate/configuration.md", import.meta.url), "utf8");
    for (const { name } of describeEnvironment()) expect(reference).toContain(`| \`${name}\` |`);
  });
});
