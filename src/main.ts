/**
 * The process: parse the environment, open and migrate the database, create
 * the first account on an empty one, wire the limiter, listen, and on
 * SIGTERM report not ready while still serving (DRAIN_GRACE_MS), then stop
 * accepting and drain in-flight requests (bounded) before closing the pools.
 * With WEB_CONCURRENCY above 1 it supervises that many such processes
 * instead (src/ops/supervisor.ts), each of which runs all of this.
 */
import "./production-mode.ts"; // first: before any library reads NODE_ENV
import { openDatabase } from "../db/client.ts";
import { EmbeddedClusterFailed } from "../db/embedded-cluster.ts";
import { EmbeddedDatabaseBusy } from "../db/embedded-lock.ts";
import { migrateDatabase } from "../db/migrate.ts";
import { createAbuseDetector } from "./abuse/wiring.ts";
import { followAccountChanges } from "./accounts/change-feed.ts";
import { KeyCache } from "./accounts/key-cache.ts";
import { StandingWatch } from "./accounts/standing-watch.ts";
import { BackgroundWrites } from "./background.ts";
import { bootstrapFirstAccount } from "./accounts/service.ts";
import { createMcpSessions } from "./mcp/wiring.ts";
import { buildApp } from "./app.ts";
import { systemClock } from "./clock.ts";
import { systemResolver } from "./contents/egress/resolver.ts";
import { SafeFetch } from "./contents/egress/safe-fetch.ts";
import { ExtractionPool } from "./contents/extraction-pool.ts";
import { PageReads } from "./contents/page-reads.ts";
import { HotPages } from "./contents/hot-pages.ts";
import { ConfigError, loadConfig, type Config } from "./config.ts";
import { KEY_ENV } from "./accounts/keys.ts";
import { localBaseUrl } from "./http/base-url.ts";
import { signInLinkUrl } from "./accounts/sign-in-links.ts";
import { InFlightGauge } from "./limits/peak-load.ts";
import { createRateLimiter } from "./limits/wiring.ts";
import { createLogger, flushLogs, throttledWarn } from "./log.ts";
import { UsageRecorder } from "./usage/recorder.ts";
import { JobQueue, jobQueueSettings } from "./job-queue.ts";
import { drainWhenSupervisorGoes, superviseWorkers } from "./ops/supervisor.ts";
import { enableMetrics } from "./observe/metrics.ts";
import { serveMetrics } from "./observe/metrics-server.ts";
import { startTracing } from "./observe/tracing.ts";
import { PROBE_PATHS } from "./ops/routes.ts";

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

let config: Config;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (error instanceof ConfigError) fail(`cannot start: ${error.message}`);
  throw error;
}

const log = createLogger({ level: config.logLevel, origin: config.web.worker ? { worker: config.web.worker } : undefined });
// Several server processes (WEB_CONCURRENCY): this one supervises them, or is one of them and goes on below.
if (config.web.concurrency > 1) {
  if (config.web.worker === undefined)
    await superviseWorkers({
      config,
      log,
      environment: process.env,
      command: [process.execPath, ...process.execArgv, ...process.argv.slice(1)],
    });
  drainWhenSupervisorGoes();
}
const clock = systemClock;
const spansLost = throttledWarn(log, 60_000);
// Both before anything counts or traces: the catalogue and the tracer are read as the app is built and serves.
if (config.metrics) enableMetrics();
const tracing = startTracing(process.env, { worker: config.web.worker, untracedRoutes: PROBE_PATHS }, (reason) =>
  spansLost("spans not exported; they are dropped", { reason }),
);
if (tracing?.refusedHeaders.length)
  log.warn("OTLP headers left out: each must be name=value and valid HTTP", { headers: tracing.refusedHeaders });

const database = await openDatabase(
  config.database.url
    ? { kind: "postgres", url: config.database.url, poolMax: config.database.poolMax }
    : {
        kind: "pglite",
        dataDir: config.dataDir,
        role: "server",
        created: (made) =>
          log.info("embedded database created", {
            from: made.source,
            ms: made.ms,
            ...(made.childPeakRssBytes ? { child_peak_rss_mb: Math.round(made.childPeakRssBytes / 2 ** 20) } : {}),
          }),
      },
).catch((error: unknown) => {
  if (error instanceof EmbeddedDatabaseBusy) {
    // Most likely a second instance, started to make a fleet: say why this database cannot have one, and what can.
    fail(
      [
        `cannot start: ${error.message}.`,
        "The embedded database (PGlite) belongs to one process: two processes writing its folder would corrupt it, so a",
        "second server cannot share it. Stop the other process, or, to run several instances, set DATABASE_URL to a",
        "Postgres they all use (and REDIS_URL to a Redis): see docs/operate/deploying.md.",
      ].join("\n"),
    );
  }
  if (error instanceof EmbeddedClusterFailed) fail(`cannot start: ${error.message}`);
  throw error;
});
await migrateDatabase(database, config.database.url);

const load = new InFlightGauge();
const limiter = await createRateLimiter(config.rateLimit, { clock, log, load });
const keyCache = new KeyCache(config.authCacheTtlMs, () => clock.now());
const standing = new StandingWatch(database.db, log);
const unfollowAccounts = await followAccountChanges(database, keyCache, log, standing);
const usage = new UsageRecorder(database.db, log, config.pricing, {
  debited: (accountId) => keyCache.forgetAccount(accountId),
});
/** Shutdown's phase: serving, then not ready but serving (the grace), then refusing new calls while the running ones finish. */
let phase: "serving" | "grace" | "refusing" = "serving";
const fetcher = new SafeFetch(config.fetch, { resolver: systemResolver, log });
const pageReads = new PageReads(new HotPages({ maxBytes: config.hotPagesBytes }));
const extractor = new ExtractionPool(config.extraction, log);
const background = new BackgroundWrites();
// The detector's own verbs (throttle, suspend) reach this process's running calls through `standing` at once.
const abuse = createAbuseDetector(config, { accounts: { db: database.db, clock, keyCache, standing }, log, background });
const mcpSessions = await createMcpSessions(config, { database, clock, log });
const jobs = new JobQueue(database.connection, jobQueueSettings(config), log);
const app = buildApp(
  { database, limiter, usage, clock, log, load, keyCache, standing, fetcher, pageReads, extractor, background, abuse, mcpSessions, jobs },
  config,
  {
    draining: () => phase !== "serving",
    refusing: () => phase === "refusing",
  },
);
// reusePort (Elysia's default, said here because workers rely on it): WEB_CONCURRENCY processes share the port.
app.listen({ port: config.port, hostname: config.host, reusePort: true });
const server = app.server!;
const localUrl = localBaseUrl(config.host, server.port!);
// Each worker of WEB_CONCURRENCY counts its own process: worker N serves METRICS_PORT + N - 1.
const metricsServer = config.metrics
  ? serveMetrics({ port: config.metrics.port && config.metrics.port + (config.web.worker ?? 1) - 1, host: config.metrics.host })
  : undefined;
log.info("listening", {
  url: localUrl,
  database: database.description,
  rate_limit_store: limiter.status().store,
  ...(metricsServer ? { metrics_port: metricsServer.port } : {}),
  ...(tracing ? { tracing: "otlp", sampler: tracing.sampler } : {}),
});
// The jobs queued before this start (on any instance) are worked: the queue is shared through the database.
await jobs.start().catch((error: unknown) => log.error("the job queue did not start: tasks wait until it does", { error }));

const first = await bootstrapFirstAccount({ db: database.db, clock });
if (first) {
  // The one time a key is printed: the operator needs it to make the first call. It is not a log line.
  flushLogs();
  process.stdout.write(
    [
      "",
      `First start: created the account "local" (${first.account.id}) and its API key.`,
      "The key is shown only this once; store it now:",
      "",
      `  export ${KEY_ENV}=${first.secret}`,
      "",
      "Try it:",
      `  curl -sS ${localUrl}/v1/account -H "X-API-Key: $${KEY_ENV}"`,
      "",
      `The dashboard is at ${localUrl}/dashboard. To set its email and password for "local", open this link`,
      "within 15 minutes (it works once):",
      "",
      `  ${signInLinkUrl(config.publicBaseUrl ?? localUrl, first.signInLink.token)}`,
      "",
      `Later: a new link with  npm run cli -- accounts sign-in-link --account ${first.account.id}`,
      `or set the sign-in with  npm run cli -- accounts password --account ${first.account.id} --email YOU@EXAMPLE.COM`,
      "",
    ].join("\n") + "\n",
  );
}

async function shutdown(signal: string): Promise<void> {
  if (phase !== "serving") return;
  phase = "grace";
  // A balancer that checks /readyz every few seconds goes on sending calls until it has seen it fail: they are served
  // meanwhile, so a rolling deploy fails none. Ctrl-C has no balancer to wait for.
  const graceMs = signal === "SIGTERM" ? config.drainGraceMs : 0;
  log.info("draining", { signal, grace_ms: graceMs, timeout_ms: config.shutdownTimeoutMs });
  if (graceMs > 0) await Bun.sleep(graceMs);
  phase = "refusing";
  // Stop accepting: a connection refused is one the balancer retries elsewhere. Idle connections close now, busy
  // ones when their response is done; a straggler on one hears 503 draining (ops/drain.ts).
  const stopped = server.stop(false);
  // An MCP notification stream never ends by itself: this process's streams and servers are released (the sessions stay
  // in the shared store, and their clients reconnect to another instance).
  mcpSessions.closeAll();
  // No new tasks are taken; the running ones finish with the calls, or go back to the queue for another instance.
  const jobsStopped = jobs.stop(config.shutdownTimeoutMs);
  // The calls and streams already running finish, within the deadline; what outlives it is cut.
  const until = performance.now() + config.shutdownTimeoutMs;
  while (performance.now() < until && (server.pendingRequests > 0 || server.pendingWebSockets > 0)) await Bun.sleep(50);
  if (server.pendingRequests > 0 || server.pendingWebSockets > 0) {
    log.warn("shutdown deadline passed; closing remaining connections");
    await server.stop(true);
  } else await stopped;
  await jobsStopped;
  await pageReads.drain();
  await background.settled();
  await extractor.close();
  await usage.close();
  await unfollowAccounts();
  await limiter.close();
  await abuse.close();
  await mcpSessions.close();
  await database.close();
  await tracing?.shutdown().catch((error: unknown) => log.warn("spans not exported at shutdown", { error }));
  await metricsServer?.stop();
  log.info("stopped");
  process.exit(0);
}

process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
