/**
 * Starts the real app (buildApp) on loopback over a test database and the
 * configured limiter store, and gives tests a few conveniences: accounts
 * created through the real service, captured log lines, and stop().
 */
import type { Database } from "../../db/client.ts";
import type { AbuseDetector } from "../../src/abuse/detector.ts";
import { createAbuseDetector } from "../../src/abuse/wiring.ts";
import { followAccountChanges } from "../../src/accounts/change-feed.ts";
import { KeyCache } from "../../src/accounts/key-cache.ts";
import { StandingWatch } from "../../src/accounts/standing-watch.ts";
import { createAccount } from "../../src/accounts/service.ts";
import type { AccountsContext } from "../../src/accounts/context.ts";
import { buildApp } from "../../src/app.ts";
import { JobQueue, jobQueueSettings } from "../../src/job-queue.ts";
import { MemorySessionStore } from "../../src/mcp/memory-session-store.ts";
import { MemoryNotices } from "../../src/mcp/session-notices.ts";
import { McpSessions } from "../../src/mcp/sessions.ts";
import { createMcpSessions } from "../../src/mcp/wiring.ts";
import type { DatabaseHandle } from "../../db/client.ts";
import type { Logger } from "../../src/log.ts";
import { BackgroundWrites } from "../../src/background.ts";
import { systemClock, type Clock } from "../../src/clock.ts";
import { loadConfig, type Config } from "../../src/config.ts";
import { RateLimiter } from "../../src/limits/limiter.ts";
import { MemoryStore } from "../../src/limits/memory-store.ts";
import { InFlightGauge } from "../../src/limits/peak-load.ts";
import { RedisStore } from "../../src/limits/redis-store.ts";
import type { BucketStore } from "../../src/limits/store.ts";
import { systemResolver, type Resolver } from "../../src/contents/egress/resolver.ts";
import { SafeFetch } from "../../src/contents/egress/safe-fetch.ts";
import { ExtractionPool } from "../../src/contents/extraction-pool.ts";
import { HotPages } from "../../src/contents/hot-pages.ts";
import { PageReads } from "../../src/contents/page-reads.ts";
import { createLogger } from "../../src/log.ts";
import { UsageRecorder, type RecorderOptions } from "../../src/usage/recorder.ts";
import type { TestDatabase } from "./database.ts";
import { TEST_REDIS_URL } from "./env.ts";
import { clearPrefix, uniquePrefix } from "./redis.ts";

export interface TestAppOptions {
  /** "redis" needs TEST_REDIS_URL; the default is redis when it is set, else memory. */
  store?: "memory" | "redis" | ((clock: Clock) => BucketStore);
  env?: Record<string, string>;
  clock?: Clock;
  load?: InFlightGauge;
  keyPrefix?: string;
  /** DNS answers for page fetching; the default is the system resolver. */
  resolver?: Resolver;
  /** A fixed port (the browser tests need one); the default is any free port. */
  port?: number;
  /** Limit-evasion detection (src/abuse/), on the same store as the limiter; off unless asked for. */
  abuse?: boolean;
  /** The usage recorder's timings (its batch flush, its back-off after a failed write). */
  usage?: Partial<Pick<RecorderOptions, "flushIntervalMs" | "failureBackoffMs">>;
}

export interface TestAccount {
  accountId: string;
  keyId: string;
  apiKey: string;
}

export interface TestApp {
  url: string;
  db: Database;
  /** The app's own accounts context (its key cache included): verbs called here evict like the routes' do. */
  accounts: AccountsContext;
  /** The app's running calls per account: a test waits for a run to be registered before suspending its account. */
  standing: StandingWatch;
  config: Config;
  clock: Clock;
  limiter: RateLimiter;
  abuse: AbuseDetector | undefined;
  /**
   * The MCP sessions, on the test's backends as the app's wiring picks them (Redis with TEST_REDIS_URL, else
   * Postgres with TEST_DATABASE_URL, else memory): apps started on one database (and one key prefix) share them as
   * the instances of a fleet do. A test waits for a client's notification stream here before changing its tools.
   */
  mcpSessions: McpSessions;
  /** The job queue: started by the first job sent (a task created), or by a test that wants this app to work queued jobs. */
  jobs: JobQueue;
  usage: UsageRecorder;
  load: InFlightGauge;
  pageReads: PageReads;
  logs: string[];
  keyPrefix: string;
  /** Resolves once the writes requests started without waiting (last-used and last-seen stamps) have finished. */
  settled(): Promise<void>;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** The app in-process, with no socket between: what bench/observability.ts times a request's own work by. */
  handle(request: Request): Promise<Response>;
  account(input?: { name?: string; credit?: number; limit?: number }): Promise<TestAccount>;
  stop(): Promise<void>;
}

export async function startTestApp(database: TestDatabase, options: TestAppOptions = {}): Promise<TestApp> {
  const keyPrefix = options.keyPrefix ?? uniquePrefix("app");
  const config = loadConfig({ LOG_LEVEL: "info", RATE_LIMIT_KEY_PREFIX: keyPrefix, ...options.env });
  const clock = options.clock ?? systemClock;
  const logs: string[] = [];
  const log = createLogger({ level: "debug", sink: (line) => logs.push(line) });
  const load = options.load ?? new InFlightGauge();
  const fallback = new MemoryStore(clock);
  const choice = options.store ?? (TEST_REDIS_URL ? "redis" : "memory");
  let store: BucketStore = fallback;
  if (choice === "redis") {
    if (!TEST_REDIS_URL) throw new Error("this test needs TEST_REDIS_URL");
    store = new RedisStore(TEST_REDIS_URL);
  } else if (typeof choice === "function") store = choice(clock);
  await store.init?.().catch(() => {});
  const limiter = new RateLimiter(store, fallback, config.rateLimit, { clock, log, load });
  const keyCache = new KeyCache(config.authCacheTtlMs, () => clock.now());
  const standing = new StandingWatch(database.handle.db, log);
  const unfollow = await followAccountChanges(database.handle, keyCache, log, standing);
  const usage = new UsageRecorder(database.handle.db, log, config.pricing, {
    ...options.usage,
    debited: (accountId) => keyCache.forgetAccount(accountId),
  });
  const background = new BackgroundWrites();
  const accounts: AccountsContext = { db: database.handle.db, clock, keyCache, standing, background };
  const fetcher = new SafeFetch(config.fetch, { resolver: options.resolver ?? systemResolver, log });
  const pageReads = new PageReads(new HotPages({ maxBytes: config.hotPagesBytes }));
  const extractor = new ExtractionPool({ ...config.extraction, workers: 1 }, log);
  const abuse = options.abuse
    ? createAbuseDetector(
        { abuse: config.abuse, rateLimit: { ...config.rateLimit, redisUrl: choice === "redis" ? TEST_REDIS_URL : undefined } },
        { accounts: { db: database.handle.db, clock, keyCache, standing }, log, background },
      )
    : undefined;
  const mcpSessions = await testMcpSessions(database.handle, { config, redis: choice === "redis", clock, log });
  // Started when the first task is created (most tests create none, and never poll).
  const jobs = new JobQueue(database.handle.connection, jobQueueSettings(config), log);
  const app = buildApp(
    {
      database: database.handle,
      limiter,
      usage,
      clock,
      log,
      load,
      keyCache,
      standing,
      fetcher,
      pageReads,
      extractor,
      background,
      abuse,
      mcpSessions,
      jobs,
    },
    config,
  );
  app.listen({ port: options.port ?? 0, hostname: "127.0.0.1" });
  const url = `http://127.0.0.1:${app.server!.port}`;
  return {
    url,
    db: database.handle.db,
    accounts,
    standing,
    config,
    clock,
    limiter,
    abuse,
    mcpSessions,
    usage,
    load,
    pageReads,
    logs,
    keyPrefix,
    settled: () => background.settled(),
    fetch: (path, init) => fetch(`${url}${path}`, init),
    handle: (request) => app.handle(request),
    async account(input = {}) {
      const created = await createAccount(accounts, {
        name: input.name ?? "test",
        creditDollars: input.credit,
        customRateLimit: input.limit ?? null,
      });
      return { accountId: created.account.id, keyId: created.key.id, apiKey: created.secret };
    },
    jobs,
    async stop() {
      await jobs.stop(5_000);
      await mcpSessions.close();
      await app.stop(true);
      await unfollow();
      await pageReads.drain();
      await extractor.close();
      await usage.close();
      await limiter.close();
      await background.settled();
      await abuse?.close();
      if (choice === "redis") await clearPrefix(keyPrefix);
    },
  };
}

/** On the embedded database, one memory store per database: apps in this process on one database share it. */
const memorySessions = new WeakMap<DatabaseHandle, { store: MemorySessionStore; notices: MemoryNotices }>();

async function testMcpSessions(
  database: DatabaseHandle,
  { config, redis, clock, log }: { config: Config; redis: boolean; clock: Clock; log: Logger },
): Promise<McpSessions> {
  if (redis || database.kind === "postgres")
    return createMcpSessions(
      { rateLimit: { ...config.rateLimit, redisUrl: redis ? TEST_REDIS_URL : undefined } },
      { database, clock, log },
    );
  let shared = memorySessions.get(database);
  if (!shared) memorySessions.set(database, (shared = { store: new MemorySessionStore(), notices: new MemoryNotices() }));
  const sessions = new McpSessions(shared.store, shared.notices, () => clock.now(), log);
  await sessions.start();
  return sessions;
}

/** Sends `count` requests with at most `concurrency` in flight; returns the statuses in order. */
export async function burst(count: number, concurrency: number, send: (i: number) => Promise<Response>): Promise<number[]> {
  const statuses = new Array<number>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const response = await send(i);
      await response.arrayBuffer();
      statuses[i] = response.status;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return statuses;
}

export const countOf = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

/** A response's JSON body, loosely typed: tests assert its shape. */
export const jsonOf = async (response: Response | Promise<Response>): Promise<any> => (await response).json();
