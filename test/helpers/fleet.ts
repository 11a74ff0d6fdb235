/**
 * A fleet on loopback: N instances of the real server (`bun src/main.ts`,
 * what `npm start` runs), each a process of its own on its own port, on one
 * fresh Postgres database and one Redis key prefix, behind HAProxy
 * (haproxy.ts). A test calls the fleet through the balancer (`fleet.url`)
 * or one instance directly (`instance.url`), and stops (SIGTERM), kills
 * (SIGKILL) and starts an instance again on its port, as a deploy or a crash
 * would. Needs TEST_DATABASE_URL, TEST_REDIS_URL and haproxy (`.ci/run`
 * sets and installs them).
 *
 * Every process it starts is ended by close(), and, should the test runner
 * itself die first, by this process's exit.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { count, inArray } from "drizzle-orm";
import { usageRecords } from "../../db/schema.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../../src/accounts/service.ts";
import { systemClock } from "../../src/clock.ts";
import type { TestAccount } from "./app.ts";
import { freshDatabase, type TestDatabase } from "./database.ts";
import { TEST_DATABASE_URL, TEST_REDIS_URL } from "./env.ts";
import { INSTANCE_HEADER, startBalancer, UNROUTED_WITHIN_MS, type Balancer } from "./haproxy.ts";
import { runCli, startServer, type ServerProcess } from "./process.ts";
import { startSearchWorld, type SearchWorld } from "./search-world.ts";
import { clearPrefix, uniquePrefix } from "./redis.ts";
import { freePort } from "./redis-server.ts";

export interface FleetOptions {
  /** Instances behind the balancer (3). */
  size?: number;
  /** Settings for every instance (a search world's, say); they win over the fleet's own. */
  env?: Record<string, string>;
}

export interface Instance {
  /** Its name in HAProxy and in the `x-fleet-instance` header: a, b, c… */
  readonly name: string;
  readonly port: number;
  /** Its own address, past the balancer. */
  readonly url: string;
  /** The running process; undefined while stopped. */
  readonly process: ServerProcess | undefined;
  /** Everything it printed, over all its starts. */
  output(): string;
  /** SIGTERM, as a deploy sends it: resolves with the exit code once the process has drained and exited. */
  stop(): Promise<number>;
  /** SIGKILL: the process dies where it stands, as on an OOM kill or a lost host. */
  kill(): Promise<void>;
  /** Starts it again on its port; resolves once HAProxy routes to it. */
  start(): Promise<void>;
  /** stop() then start(): one step of a rolling deploy. Resolves with the stop's exit code. */
  restart(): Promise<number>;
}

export interface Fleet {
  /** The balancer's address: what a client calls. */
  url: string;
  instances: Instance[];
  balancer: Balancer;
  /** The fleet's database, for reading what the instances wrote (usage rows, say). */
  database: TestDatabase;
  /** The environment every instance runs with: the CLI given it works on the fleet's database and Redis. */
  env: Record<string, string>;
  /** An account made in the fleet's database with the service's own verb; `limit` makes it Enterprise. */
  account(input?: { name?: string; credit?: number; limit?: number }): Promise<TestAccount>;
  /** The CLI (`bun src/cli.ts`) on the fleet's database and Redis, as an operator runs it beside the fleet. */
  cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** The instance that answered a response that came through the balancer. */
  instanceOf(response: Response): string | null;
  /** How many usage rows each of these request ids has (ids without one are absent). */
  usageRows(requestIds: string[]): Promise<Map<string, number>>;
  close(): Promise<void>;
}

/** Processes started here and still running: ended at exit if close() never ran. */
const live = new Set<ServerProcess>();
process.on("exit", () => {
  for (const server of live) server.child.kill("SIGKILL");
});

export const fleetRunnable = Boolean(TEST_DATABASE_URL && TEST_REDIS_URL);

export async function startFleet(options: FleetOptions = {}): Promise<Fleet> {
  if (!TEST_DATABASE_URL || !TEST_REDIS_URL) throw new Error("the fleet needs TEST_DATABASE_URL and TEST_REDIS_URL (see .ci/run)");
  const size = options.size ?? 3;
  const database = await freshDatabase();
  const keyPrefix = uniquePrefix("fleet");
  const dataDir = mkdtempSync(join(tmpdir(), "fleet-"));
  const env: Record<string, string> = {
    DATABASE_URL: database.url!,
    REDIS_URL: TEST_REDIS_URL,
    RATE_LIMIT_KEY_PREFIX: keyPrefix,
    DATA_DIR: dataDir,
    LOG_LEVEL: "info",
    // Two shared cores run the whole fleet: one extraction thread and a few connections per instance.
    EXTRACT_WORKERS: "1",
    DATABASE_POOL_MAX: "4",
    SHUTDOWN_TIMEOUT_MS: "10000",
    // The drain grace must outlast the balancer's two failed checks.
    DRAIN_GRACE_MS: String(UNROUTED_WITHIN_MS + 1_000),
    // One server process an instance, so a test stops, kills and counts instances (several per machine: workers.slow.test.ts).
    WEB_CONCURRENCY: "1",
    ...options.env,
  };
  const names = "abcdefghij".slice(0, size).split("");
  const ports = await Promise.all(names.map(() => freePort()));

  let balancer: Balancer | undefined;
  const instances = names.map((name, i) => fleetInstance(name, ports[i]!, env, () => balancer));
  const close = async () => {
    await Promise.all(instances.map((instance) => (instance.process ? instance.kill() : undefined)));
    await balancer?.stop();
    await database.drop();
    await clearPrefix(keyPrefix);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    // The balancer after the instances: it takes a server for up until its checks say otherwise.
    await Promise.all(instances.map((instance) => instance.start()));
    balancer = await startBalancer(instances.map((instance) => ({ name: instance.name, port: instance.port })));
    await Promise.all(instances.map((instance) => balancer!.waitFor(instance.name, "UP")));
  } catch (error) {
    await close();
    throw error;
  }

  return {
    url: balancer.url,
    instances,
    balancer,
    database,
    env,
    async account(input = {}) {
      const created = await createAccount(
        { db: database.handle.db, clock: systemClock },
        { name: input.name ?? "fleet", creditDollars: input.credit, customRateLimit: input.limit ?? null },
      );
      return { accountId: created.account.id, keyId: created.key.id, apiKey: created.secret };
    },
    cli: (args) => runCli(args, env),
    instanceOf: (response) => response.headers.get(INSTANCE_HEADER),
    async usageRows(requestIds) {
      const rows: { requestId: string | null; rows: number }[] = [];
      // In slices: one statement's parameters are bounded.
      for (let i = 0; i < requestIds.length; i += 5_000) {
        const ids = requestIds.slice(i, i + 5_000);
        rows.push(
          ...(await database.handle.db
            .select({ requestId: usageRecords.requestId, rows: count() })
            .from(usageRecords)
            .where(inArray(usageRecords.requestId, ids))
            .groupBy(usageRecords.requestId)),
        );
      }
      return new Map(rows.map((r) => [r.requestId!, Number(r.rows)]));
    },
    close,
  };
}

function fleetInstance(name: string, port: number, env: Record<string, string>, balancer: () => Balancer | undefined): Instance {
  let current: ServerProcess | undefined;
  const earlier: string[] = [];
  const ended = (server: ServerProcess) => {
    live.delete(server);
    earlier.push(server.output());
    if (current === server) current = undefined;
  };
  const instance: Instance = {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    get process() {
      return current;
    },
    output: () => [...earlier, current?.output() ?? ""].join(""),
    async stop() {
      const server = current;
      if (!server) throw new Error(`instance ${name} is not running`);
      const code = await server.stop("SIGTERM");
      ended(server);
      return code;
    },
    async kill() {
      const server = current;
      if (!server) throw new Error(`instance ${name} is not running`);
      await server.stop("SIGKILL");
      ended(server);
    },
    async start() {
      if (current) throw new Error(`instance ${name} is already running`);
      current = await startServer({ ...env, PORT: String(port) });
      live.add(current);
      await balancer()?.waitFor(name, "UP");
    },
    async restart() {
      const code = await instance.stop();
      await instance.start();
      return code;
    },
  };
  return instance;
}

/**
 * A fleet searching a loopback web, started by the first test that asks for
 * it: a file whose tests are all still todo starts nothing. stop() (in
 * afterAll) ends whatever was started.
 */
export function fleetOnDemand(options: FleetOptions = {}): {
  get(): Promise<{ fleet: Fleet; world: SearchWorld }>;
  stop(): Promise<void>;
} {
  let started: Promise<{ fleet: Fleet; world: SearchWorld }> | undefined;
  return {
    get() {
      started ??= (async () => {
        const world = startSearchWorld({ spawned: true });
        try {
          return { fleet: await startFleet({ ...options, env: world.env(options.env) }), world };
        } catch (error) {
          world.stop();
          throw error;
        }
      })();
      return started;
    },
    async stop() {
      const running = await started?.catch(() => undefined);
      await running?.fleet.close();
      running?.world.stop();
    },
  };
}
