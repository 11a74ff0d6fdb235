/**
 * buildApp composes the features into one Elysia app from dependencies that
 * are already open: no I/O here, so tests build the real app on a database
 * and limiter of their choosing and call it over HTTP.
 */
import { Elysia } from "elysia";
import type { DatabaseHandle } from "../db/client.ts";
import type { AbuseDetector } from "./abuse/detector.ts";
import { accountsAuthenticator } from "./accounts/authenticator.ts";
import type { KeyCache } from "./accounts/key-cache.ts";
import type { StandingWatch } from "./accounts/standing-watch.ts";
import type { BackgroundWrites } from "./background.ts";
import { accountRoutes } from "./accounts/routes.ts";
import type { Clock } from "./clock.ts";
import type { SafeFetch } from "./contents/egress/safe-fetch.ts";
import type { Extractor } from "./contents/extraction-pool.ts";
import type { PageReads } from "./contents/page-reads.ts";
import { contentsRoutes } from "./contents/routes.ts";
import { dashboardRoutes } from "./dashboard/routes.ts";
import { EndpointChanges } from "./endpoints/changes.ts";
import { designRoutes } from "./endpoints/routes.ts";
import { userServiceRoutes } from "./endpoints/runtime/routes.ts";
import { marketplaceRoutes } from "./marketplace/routes.ts";
import type { RunDeps } from "./research/run/hold.ts";
import { RunQueue } from "./research/run/queue.ts";
import { engineDeps } from "./research/wiring.ts";
import { usageRoutes } from "./usage/routes.ts";
import { mcpRoutes } from "./mcp/routes.ts";
import type { Dispatch } from "./mcp/server.ts";
import type { McpSessions } from "./mcp/sessions.ts";
import { searchRoutes } from "./search/routes.ts";
import { openAiOutcome, speaksOpenAi } from "./openai/errors.ts";
import { openAiRoutes } from "./openai/routes.ts";
import { searchSocket } from "./search/ws.ts";
import type { Config } from "./config.ts";
import type { RouteSummary } from "./discovery/guide.ts";
import { discoveryRoutes } from "./discovery/routes.ts";
import { bodyParser } from "./http/body.ts";
import { API_VERSION, docsAssets, isBillable, openapiDocs } from "./http/openapi.ts";
import type { AuthDeps } from "./http/auth.ts";
import { inputGuard } from "./http/input-guard.ts";
import { requestContext } from "./http/request-context.ts";
import { admission } from "./limits/admission.ts";
import type { RateLimiter } from "./limits/limiter.ts";
import type { InFlightGauge } from "./limits/peak-load.ts";
import { throttledWarn, type Logger } from "./log.ts";
import { drainGate, type DrainState } from "./ops/drain.ts";
import { opsRoutes } from "./ops/routes.ts";
import type { UsageRecorder } from "./usage/recorder.ts";
import { TaskEvents } from "./tasks/events.ts";
import { TaskQueue } from "./tasks/queue.ts";
import type { JobQueue } from "./job-queue.ts";
import { webhookRoutes } from "./webhooks/routes.ts";
import { Webhooks } from "./webhooks/service.ts";
import { batchPacer } from "./tasks/batch-pacing.ts";
import { batchRoutes } from "./tasks/batch-routes.ts";
import { taskRoutes } from "./tasks/routes.ts";
import { MonitorScheduler } from "./tasks/monitor-scheduler.ts";
import { monitorRoutes } from "./tasks/monitor-routes.ts";
import { monitorRunSucceeded, type MonitorsContext, runDueMonitors } from "./tasks/monitors.ts";
import { runTask } from "./tasks/run.ts";
import type { TaskRow } from "./tasks/queries.ts";
import { abandonTask, queueAgain, sweepTasks, type TasksContext } from "./tasks/service.ts";

export interface AppDeps {
  database: DatabaseHandle;
  limiter: RateLimiter;
  usage: UsageRecorder;
  clock: Clock;
  log: Logger;
  load: InFlightGauge;
  /** Shared with every verb that changes keys or balances in this process, so they evict at once. */
  keyCache: KeyCache;
  /** The calls running here per account, fed by the account change feed: a suspension ends them. */
  standing: StandingWatch;
  /** The one outbound chokepoint for caller-supplied URLs. */
  fetcher: SafeFetch;
  /** Page reads in progress; shutdown drains their stores. */
  pageReads: PageReads;
  /** Extraction off the event loop. */
  extractor: Extractor;
  /** Writes a request starts and does not wait for; shutdown waits for them. */
  background: BackgroundWrites;
  /** Limit-evasion detection: hears every research call of a Free account. Absent: nothing is counted. */
  abuse?: AbuseDetector;
  /** The MCP sessions, on the store the fleet shares (mcp/wiring.ts); shutdown lets go of what this process holds. */
  mcpSessions: McpSessions;
  /** The job queue, shared by the fleet through the database: the app defines its queues and workers; they work once it has started. */
  jobs: JobQueue;
}

export type AppConfig = Pick<
  Config,
  | "publicBaseUrl"
  | "maxBodyBytes"
  | "idleTimeoutSeconds"
  | "contentsMaxAgeSeconds"
  | "search"
  | "runs"
  | "llm"
  | "fetch"
  | "dashboard"
  | "clientAddress"
  | "tasks"
  | "webhooks"
  | "monitors"
  | "pricing"
>;

/** Where shutdown stands (ops/drain.ts): not ready once it begins, refusing new calls once its grace is over. */
export type AppState = DrainState;

const SERVING: AppState = { draining: () => false, refusing: () => false };

export function buildApp(deps: AppDeps, config: AppConfig, state: AppState = SERVING) {
  const accounts = {
    db: deps.database.db,
    clock: deps.clock,
    keyCache: deps.keyCache,
    standing: deps.standing,
    warn: throttledWarn(deps.log),
    background: deps.background,
  };
  // Discovery, the error mapping and billing read the app's own routes, once the app is composed.
  let listed: RouteInfo[] = [];
  const routes = routeTable(() => listed);
  const auth: AuthDeps = {
    authenticator: accountsAuthenticator(accounts),
    admit: admission(deps.limiter, { dashboardPerMinute: config.dashboard.perMinute }),
    now: () => deps.clock.now(),
    publicBaseUrl: config.publicBaseUrl,
    clientAddress: config.clientAddress,
    usage: deps.usage,
    billable: routes.billable,
    log: deps.log,
  };
  const identity = {
    ...accounts,
    limiter: deps.limiter,
    signupsPerMinute: config.dashboard.signupsPerMinute,
    signinsPerMinute: config.dashboard.signinsPerMinute,
    sessionLifetimeMs: config.dashboard.sessionDays * 86_400_000,
  };
  const contents = {
    db: deps.database.db,
    fetcher: deps.fetcher,
    clock: deps.clock,
    log: deps.log,
    defaultMaxAgeSeconds: config.contentsMaxAgeSeconds,
    reads: deps.pageReads,
    extractor: deps.extractor,
  };
  // The research run wrapper's parts: every search and endpoint call runs through it.
  const runs: RunDeps = {
    engine: engineDeps(config, { contents, clock: deps.clock, log: deps.log }),
    load: deps.load,
    queue: new RunQueue({ concurrency: config.runs.concurrency, maxQueued: config.runs.queueMax }, deps.clock, deps.log),
    deadlineMs: config.search.deadlineMs,
    clock: deps.clock,
    standing: deps.standing,
    ...(deps.abuse ? { watch: deps.abuse.observe.bind(deps.abuse) } : {}),
  };
  const docs = openapiDocs(config.publicBaseUrl);
  const changes = new EndpointChanges(deps.log);
  const endpoints = { db: deps.database.db, clock: deps.clock, llm: runs.engine.llm, log: deps.log, changes };
  const mcpSessions = deps.mcpSessions;
  // A change to what an account's MCP tools are reaches its open sessions, on whichever instance their streams are.
  changes.subscribe(
    (change) =>
      void mcpSessions
        .toolsChanged(change.accountId)
        .catch((error: unknown) =>
          deps.log.warn("MCP sessions were not told their tools changed", { account_id: change.accountId, error }),
        ),
  );
  const webhooks = new Webhooks({
    db: deps.database.db,
    clock: deps.clock,
    log: deps.log,
    jobs: deps.jobs,
    fetcher: deps.fetcher,
    settings: { ...config.webhooks, userAgent: config.fetch.userAgent, retentionDays: config.tasks.retentionDays },
  });
  const tasks: TasksContext = {
    db: deps.database.db,
    clock: deps.clock,
    log: deps.log,
    runs,
    endpoints,
    queue: new TaskQueue(deps.jobs, { ...config.tasks, deadlineMs: config.search.deadlineMs }),
    events: new TaskEvents(deps.database.db),
    queuedMax: config.tasks.queuedMax,
    retentionDays: config.tasks.retentionDays,
    webhooks,
    egress: config.fetch,
  };
  const monitors: MonitorsContext = {
    tasks,
    minEveryMinutes: config.monitors.minEveryMinutes,
    start: () => deps.jobs.start(),
    webhooks,
  };
  const taskRuns = {
    ...tasks,
    usage: deps.usage,
    requeue: (task: TaskRow, seconds: number) => queueAgain(tasks, task, seconds),
    succeeded: (task: TaskRow) => monitorRunSucceeded(monitors, task),
    // A batch's tasks spend the plan's limit as they start, from the bucket the account's calls spend.
    pace: batchPacer({ db: deps.database.db, limiter: deps.limiter }),
  };
  // Monitors' runs are started where tasks are run: an instance with no task workers starts none.
  if (config.tasks.workers > 0)
    deps.jobs.alongside(
      new MonitorScheduler(
        config.monitors.tickSeconds * 1000,
        () => runDueMonitors(monitors),
        (message, error) => deps.log.warn(message, { error }),
      ),
    );
  tasks.queue.serve(
    {
      run: (taskId, signal) => runTask(taskRuns, taskId, signal),
      dead: (taskId) => abandonTask(tasks, taskId),
      sweep: async () => (await sweepTasks(tasks)) + (await webhooks.sweep()),
    },
    (message, error) => deps.log.warn(message, { error }),
  );
  // The MCP face calls the app's own routes; the app is composed below.
  let handle: Dispatch = () => Promise.reject(new Error("the app is not composed yet"));
  const app = new Elysia({
    // Responses are plain JSON values already: a response schema with Elysia's t.Integer (a Transform, for coercing
    // query strings) would otherwise be walked by TypeBox's Encode on every response. They are still checked.
    encodeSchema: false,
    serve: {
      // Our parser caps bodies with a JSON 413; Bun's own cap is the backstop just above it.
      maxRequestBodySize: config.maxBodyBytes + 64 * 1024,
      idleTimeout: config.idleTimeoutSeconds,
    },
    // One small JSON message per search socket (base64 images included); Bun's 16 MB default is far more.
    websocket: { maxPayloadLength: config.maxBodyBytes, idleTimeout: config.idleTimeoutSeconds, backpressureLimit: 4 * 1024 * 1024 },
  })
    .use(
      requestContext(deps.log, routes.bodySchema, (path, outcome, sent) => (speaksOpenAi(path) ? openAiOutcome(outcome, sent) : outcome)),
    )
    .use(drainGate(state))
    .use(bodyParser(config.maxBodyBytes))
    .use(inputGuard())
    .use(docs.plugin)
    .use(docsAssets())
    .use(opsRoutes({ database: deps.database, limiter: deps.limiter, runs: runs.queue, draining: state.draining }))
    .use(discoveryRoutes(config.publicBaseUrl, () => routeSummaries(listed)))
    .use(accountRoutes(auth, accounts))
    .use(contentsRoutes(auth, contents, (origin) => deps.abuse?.observe(origin, null)))
    .use(searchRoutes(auth, runs, deps.log))
    .use(searchSocket(auth, runs, deps.log, { maxSocketsPerKey: config.search.maxSocketsPerKey }))
    .use(openAiRoutes(auth, runs, endpoints, deps.log, deps.clock))
    .use(designRoutes(auth, endpoints, config.publicBaseUrl))
    .use(userServiceRoutes(auth, endpoints, runs))
    .use(
      marketplaceRoutes(auth, endpoints, runs, { publicBaseUrl: config.publicBaseUrl, perMillionTokens: config.pricing.perMillionTokens }),
    )
    .use(usageRoutes(auth, { db: deps.database.db, usage: deps.usage, clock: deps.clock }))
    .use(taskRoutes(auth, tasks))
    .use(webhookRoutes(auth, webhooks, () => deps.clock.now()))
    .use(monitorRoutes(auth, monitors))
    .use(batchRoutes(auth, tasks))
    // A tool call is a call of the route behind it, made in this process with the caller's key.
    .use(
      mcpRoutes(
        auth.authenticator,
        {
          endpoints,
          dispatch: (request) => handle(request),
          version: API_VERSION,
          // A tool's schemas are its route's, as the document states them.
          schemas: docs.document,
        },
        mcpSessions,
        config.clientAddress,
      ),
    )
    .use(
      dashboardRoutes(auth, identity, {
        credit: config.dashboard.credit,
        clientAddress: config.clientAddress,
        publicBaseUrl: config.publicBaseUrl,
      }),
    );
  listed = app.routes;
  handle = (request) => app.handle(request);
  return app;
}

export type App = ReturnType<typeof buildApp>;

interface RouteInfo {
  method: string;
  path: string;
  hooks: unknown;
}

/** What the app's composed routes declare, by method and pattern: their body schemas, and which are billable. */
function routeTable(routes: () => RouteInfo[]) {
  let table: { bodies: Map<string, unknown>; billable: Set<string> } | undefined;
  const read = () => {
    if (table) return table;
    const bodies = new Map<string, unknown>();
    const billable = new Set<string>();
    for (const route of routes()) {
      const hooks = route.hooks as { body?: unknown; detail?: unknown };
      // A WebSocket route is listed as WS; its upgrade arrives as the GET it is.
      const key = `${route.method === "WS" ? "GET" : route.method} ${route.path}`;
      bodies.set(key, hooks.body);
      if (isBillable(hooks.detail)) billable.add(key);
    }
    return (table = { bodies, billable });
  };
  return {
    bodySchema: (method: string, route: string) => read().bodies.get(`${method} ${route}`),
    billable: (method: string, route: string) => read().billable.has(`${method} ${route}`),
  };
}

function routeSummaries(routes: RouteInfo[]): RouteSummary[] {
  return routes
    .filter((route) => route.path.startsWith("/v1/"))
    .map((route) => {
      const detail = (route.hooks as { detail?: { summary?: string; security?: unknown[] } }).detail ?? {};
      return {
        method: route.method === "WS" ? "GET" : route.method,
        path: route.path.replace(/:([A-Za-z_]+)/g, "{$1}"),
        summary: detail.summary ?? (route.method === "WS" ? "Stream a search over a WebSocket" : ""),
        // The socket's upgrade passes the same authentication as every route.
        authenticated: route.method === "WS" || (Array.isArray(detail.security) && detail.security.length > 0),
      };
    });
}
