/**
 * The environment, described once as a TypeBox schema and parsed once at
 * start. Nothing else in src/ reads process.env: the parsed Config is passed in.
 * Each property's description is the documentation: `cli config` prints it and
 * `npm run docs` writes it into docs/operate/configuration.md.
 */
import { availableParallelism, totalmem } from "node:os";
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

/**
 * Research runs per CPU when RUN_CONCURRENCY does not say. Without a language
 * model a run is CPU work in this process (ranking, the extractive answer)
 * around short waits for providers and pages: a few per CPU keep the CPUs busy,
 * and more only interleave, so every run's first event comes later and more
 * pages sit in memory at once. With a model, a run mostly waits for it.
 */
const RUNS_PER_CPU = { extractive: 8, model: 32 };
/** Memory one run may hold at worst: its pages' bodies and extractions (SEARCH_READ_PAGES of up to FETCH_MAX_BYTES each, mostly far less). */
const RUN_MEMORY_BYTES = 16 * 1024 * 1024;

/** The default number of runs at once: so many per CPU, fewer where half the memory holds fewer. */
export function defaultRunConcurrency(host: { cpus: number; memoryBytes: number }, withModel: boolean): number {
  const perCpu = withModel ? RUNS_PER_CPU.model : RUNS_PER_CPU.extractive;
  return Math.max(1, Math.floor(Math.min(perCpu * host.cpus, host.memoryBytes / 2 / RUN_MEMORY_BYTES)));
}

/**
 * Set by the supervisor (src/ops/supervisor.ts) in each server process it
 * starts: that process's worker number, from 1. Not a setting: an operator
 * sets WEB_CONCURRENCY.
 */
export const WEB_WORKER_ENV = "WEB_WORKER";

/** This machine, as the run queue's default sees it: its CPUs, and a container's memory limit if there is one (Bun and Node report it). */
const thisHost = () => ({ cpus: availableParallelism(), memoryBytes: process.constrainedMemory?.() || totalmem() });

const LogLevel = Type.Union([
  Type.Literal("debug"),
  Type.Literal("info"),
  Type.Literal("warn"),
  Type.Literal("error"),
  Type.Literal("silent"),
]);

export const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: "TCP port to listen on (0 picks a free one)." }),
  HOST: Type.String({ minLength: 1, default: "0.0.0.0", description: "Address to bind. Use 127.0.0.1 to keep the API off the network." }),
  WEB_CONCURRENCY: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 256,
      documentedDefault: "the number of CPUs with Postgres and Redis, else 1",
      description:
        "Server processes on this machine, sharing its port (Linux's SO_REUSEPORT), under one supervisor that restarts a crashed one and passes SIGTERM's drain to all; each is an instance of its own, as between machines. Absent: the number of CPUs when DATABASE_URL and a shared rate-limit store (REDIS_URL or Upstash) are set, else 1. More than 1 needs both: the embedded database belongs to one process, and an in-memory limiter would let each process admit the whole limit. Defaults taken from the machine's size (RUN_CONCURRENCY, EXTRACT_WORKERS) are divided among the processes.",
    }),
  ),
  PUBLIC_BASE_URL: Type.Optional(
    Type.String({
      pattern: "^https?://[^\\s/?#]+(/[^\\s?#]*)?$",
      description: "The service's public URL, used in discovery and integration snippets. Absent: taken from each request's Host.",
    }),
  ),
  DATA_DIR: Type.String({
    minLength: 1,
    default: "./.data",
    description: "Folder of the embedded database (PGlite) and other local state.",
  }),
  DATABASE_URL: Type.Optional(
    Type.String({
      pattern: "^postgres(ql)?://",
      description: "Postgres connection URL. Absent: the embedded PGlite database in DATA_DIR.",
    }),
  ),
  DATABASE_POOL_MAX: Type.Integer({
    minimum: 1,
    maximum: 200,
    default: 10,
    description: "Largest number of Postgres connections per instance (per process with WEB_CONCURRENCY above 1).",
  }),
  REDIS_URL: Type.Optional(
    Type.String({
      pattern: "^rediss?://",
      description: "Redis for the rate limiter (redis:// or rediss://). Absent (and no Upstash): an in-memory limiter per process.",
    }),
  ),
  UPSTASH_REDIS_REST_URL: Type.Optional(
    Type.String({ pattern: "^https?://", description: "Upstash Redis REST URL for the rate limiter; needs UPSTASH_REDIS_REST_TOKEN." }),
  ),
  UPSTASH_REDIS_REST_TOKEN: Type.Optional(Type.String({ minLength: 1, description: "Upstash Redis REST token." })),
  RATE_LIMIT_FAIL_MODE: Type.Union([Type.Literal("open"), Type.Literal("closed")], {
    default: "open",
    description:
      "When the limiter's store is unreachable: `open` admits calls against a per-process bucket, `closed` refuses them with 503.",
  }),
  RATE_LIMIT_TIMEOUT_MS: Type.Integer({
    minimum: 5,
    maximum: 5000,
    default: 100,
    description: "Longest wait for the limiter's store before the fail mode applies.",
  }),
  RATE_LIMIT_KEY_PREFIX: Type.String({
    default: "as:",
    description: "Prefix of every rate-limit key in Redis (lets several deployments share one Redis).",
  }),
  PEAK_INFLIGHT_THRESHOLD: Type.Integer({
    minimum: 1,
    default: 200,
    description: "In-flight research calls per instance above which free-plan buckets refill more slowly.",
  }),
  PEAK_FREE_REFILL_FACTOR: Type.Number({
    exclusiveMinimum: 0,
    maximum: 1,
    default: 0.25,
    description: "Free-plan refill rate multiplier while over PEAK_INFLIGHT_THRESHOLD. Paid plans are never slowed.",
  }),
  AUTH_CACHE_TTL_MS: Type.Integer({
    minimum: 0,
    maximum: 60_000,
    default: 2_000,
    description:
      "How long a key lookup is reused in one process while the database's change notifications are not arriving (with them, changes made anywhere evict at once and an entry lives up to a minute); 0 turns the cache off.",
  }),
  MAX_BODY_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 104_857_600,
    default: 10_485_760,
    description: "Largest request body accepted (base64 images need room); larger gets 413.",
  }),
  IDLE_TIMEOUT_SECONDS: Type.Integer({
    minimum: 10,
    maximum: 255,
    default: 120,
    description: "Seconds a connection may stay silent. Must exceed the longest research run.",
  }),
  DRAIN_GRACE_MS: Type.Integer({
    minimum: 0,
    maximum: 300_000,
    default: 11_000,
    description:
      "On SIGTERM, how long the instance reports /readyz 503 while it still serves new calls, before it stops accepting: a balancer that checks /readyz every few seconds keeps sending calls until it has seen two failures. The default is a little over two intervals of fly.toml's 5 s check. SIGINT (Ctrl-C) skips it.",
  }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({
    minimum: 0,
    maximum: 600_000,
    default: 15_000,
    description:
      "On SIGTERM, once the instance stops accepting, how long the calls and streams already running may take before they are cut.",
  }),
  FETCH_ALLOW_HOSTS: Type.String({
    default: "",
    description:
      "Comma-separated host:port pairs exempt from the private-address block of page fetching (tests, an operator's internal site). Nothing else is exempt.",
  }),
  FETCH_PORTS: Type.String({
    pattern: "^\\d{1,5}(,\\d{1,5})*$",
    default: "80,443",
    description: "Ports page fetching may connect to (FETCH_ALLOW_HOSTS entries carry their own).",
  }),
  FETCH_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 120_000,
    default: 15_000,
    description: "Deadline of one page fetch: DNS, connect, redirects and body.",
  }),
  FETCH_FIRST_BYTE_MS: Type.Integer({
    minimum: 100,
    maximum: 120_000,
    default: 8_000,
    description: "Longest wait for a page's response headers.",
  }),
  FETCH_MAX_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 104_857_600,
    default: 5_242_880,
    description: "Largest page body read (after decompression); larger fails as fetch_too_large.",
  }),
  FETCH_MAX_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 1024, default: 64, description: "Page fetches in flight per instance." }),
  FETCH_MAX_PER_HOST: Type.Integer({ minimum: 1, maximum: 64, default: 6, description: "Page fetches in flight per host and port." }),
  FETCH_USER_AGENT: Type.String({
    minLength: 1,
    default: "AgenticSearchBot/0.1 (+https://github.com/agentic-search; reads pages its users ask about)",
    description: "User-Agent of page fetches.",
  }),
  EXTRACT_WORKERS: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: Math.max(1, navigator.hardwareConcurrency || 1),
    // The reference page is the same on every machine: it names the default rather than this one's value.
    documentedDefault: "the number of CPUs",
    description:
      "Worker threads extracting pages (default: the number of CPUs, divided among the processes when WEB_CONCURRENCY is above 1).",
  }),
  EXTRACT_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 120_000,
    default: 15_000,
    description: "Longest extraction of one page; a worker past it is replaced and the read fails.",
  }),
  EXTRACT_IDLE_MS: Type.Integer({
    minimum: 100,
    maximum: 3_600_000,
    default: 60_000,
    description: "A worker thread without a page to extract for this long stops (giving back some 10 MB); the next page starts one again.",
  }),
  CONTENTS_MAX_AGE_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 31_536_000,
    default: 86_400,
    description: "How long a fetched page is reused when a call does not say (max_age_seconds).",
  }),
  CONTENTS_MEMORY_CACHE_MB: Type.Integer({
    minimum: 0,
    maximum: 4_096,
    default: 32,
    description:
      "Memory for the hot pages: the pages this process read or served last, kept in front of the page cache's table so a hit costs no database statement (least recently used out first; one page at most an eighth of it). 0 turns it off.",
  }),
  SEARCH_PROVIDERS: Type.String({
    pattern: "^\\s*(local|searxng|brave|tavily|exa|wikipedia)(\\s*,\\s*(local|searxng|brave|tavily|exa|wikipedia))*\\s*$",
    default: "local,wikipedia",
    description: "Comma list of search providers: local, searxng, brave, tavily, exa, wikipedia. Each needs its own settings below.",
  }),
  SEARXNG_URL: Type.Optional(
    Type.String({ pattern: "^https?://", description: "Base URL of a SearXNG instance with the JSON format enabled." }),
  ),
  BRAVE_API_KEY: Type.Optional(Type.String({ minLength: 1, description: "Brave Search API key." })),
  BRAVE_URL: Type.String({ pattern: "^https?://", default: "https://api.search.brave.com", description: "Brave Search API base URL." }),
  TAVILY_API_KEY: Type.Optional(Type.String({ minLength: 1, description: "Tavily API key." })),
  TAVILY_URL: Type.String({ pattern: "^https?://", default: "https://api.tavily.com", description: "Tavily API base URL." }),
  EXA_API_KEY: Type.Optional(Type.String({ minLength: 1, description: "Exa API key." })),
  EXA_URL: Type.String({ pattern: "^https?://", default: "https://api.exa.ai", description: "Exa API base URL." }),
  WIKIPEDIA_URL: Type.String({
    pattern: "^https?://",
    default: "https://en.wikipedia.org",
    description: "The Wikipedia to search (keyless), e.g. https://de.wikipedia.org.",
  }),
  SEARCH_DEADLINE_MS: Type.Integer({
    minimum: 1_000,
    maximum: 240_000,
    default: 60_000,
    description: "A search that takes longer is a 504.",
  }),
  PROVIDER_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 120_000,
    default: 8_000,
    description: "Longest wait for one search provider call.",
  }),
  HEDGE_AFTER_MS: Type.Integer({
    minimum: 10,
    maximum: 60_000,
    default: 1_500,
    description: "A provider call without an answer after this long gets one hedged duplicate; the first answer wins.",
  }),
  SEARCH_HEDGING: Type.Boolean({ default: true, description: "Hedge slow or failed provider calls (true or false)." }),
  SEARCH_QUORUM: Type.Boolean({
    default: true,
    description:
      "Go on without a straggler (true or false): once the provider calls that answered hold SEARCH_READ_PAGES distinct results and SEARCH_QUORUM_SHARE of the calls are in, each call still out gets a grace, then is cut.",
  }),
  SEARCH_QUORUM_SHARE: Type.Number({
    minimum: 0,
    maximum: 1,
    default: 0.5,
    description: "The share of a run's provider calls that must be in (answered or failed) before a straggler's grace starts.",
  }),
  SEARCH_GRACE_FACTOR: Type.Number({
    minimum: 0.1,
    maximum: 100,
    default: 2,
    description: "A straggler's grace, as a multiple of its provider's median call time on this instance (recent calls).",
  }),
  SEARCH_GRACE_MIN_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 100, description: "The shortest grace a straggler gets." }),
  SEARCH_GRACE_MAX_MS: Type.Integer({ minimum: 0, maximum: 120_000, default: 2_000, description: "The longest grace a straggler gets." }),
  SEARCH_RESULTS_PER_QUERY: Type.Integer({ minimum: 1, maximum: 50, default: 8, description: "Hits asked of each provider per query." }),
  SEARCH_READ_PAGES: Type.Integer({ minimum: 0, maximum: 30, default: 6, description: "Top pages read per search." }),
  SEARCH_READ_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 30, default: 6, description: "Pages read at once per search." }),
  SEARCH_EARLY_READS: Type.Boolean({
    default: true,
    description: "Start reading the top hits of each provider's list as it arrives, before the slowest provider answers (true or false).",
  }),
  SEARCH_READ_GRACE: Type.Boolean({
    default: true,
    description:
      "Go on without the slowest page reads (true or false): once SEARCH_READ_GRACE_SHARE of a run's reads are in, each read still waiting for its site gets a grace, then the run answers from the page's snippet instead.",
  }),
  SEARCH_READ_GRACE_SHARE: Type.Number({
    minimum: 0,
    maximum: 1,
    default: 0.5,
    description: "The share of a run's page reads that must be in (read, from the cache, or failed) before a slow read's grace starts.",
  }),
  SEARCH_READ_GRACE_FACTOR: Type.Number({
    minimum: 0.1,
    maximum: 100,
    default: 2,
    description: "A slow page read's grace, as a multiple of the median time sites took to answer a read on this instance (recent reads).",
  }),
  SEARCH_READ_GRACE_MIN_MS: Type.Integer({
    minimum: 0,
    maximum: 60_000,
    default: 100,
    description: "The shortest grace a slow page read gets.",
  }),
  SEARCH_READ_GRACE_MAX_MS: Type.Integer({
    minimum: 0,
    maximum: 120_000,
    default: 2_000,
    description: "The longest grace a slow page read gets (also the grace before any site has answered).",
  }),
  SEARCH_READ_BUDGET_MS: Type.Integer({
    minimum: 100,
    maximum: 120_000,
    default: 8_000,
    description: "Time for reading pages; sources not read by then count by their snippets.",
  }),
  SEARCH_TOKEN_BUDGET: Type.Integer({
    minimum: 200,
    maximum: 200_000,
    default: 6_000,
    description: "Tokens of passages given to the answerer (three times this without a model).",
  }),
  SEARCH_MAX_PASSAGES: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 12,
    description: "Passages given to the answerer (three times this without a model).",
  }),
  IMAGE_MAX_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 20_971_520,
    default: 5_242_880,
    description: "Largest image accepted (decoded bytes).",
  }),
  RUN_CONCURRENCY: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 10_000,
      description:
        "Research runs (searches, streams and endpoint calls) executing at once per instance (per process with WEB_CONCURRENCY above 1); more wait their turn, fairly between accounts. Absent: 8 per CPU (32 with a language model, whose runs mostly wait for it), fewer when half the memory (a container's limit, if any) holds fewer at 16 MB a run; each process counts its share of the CPUs and memory.",
    }),
  ),
  RUN_QUEUE_MAX: Type.Integer({
    minimum: 0,
    maximum: 100_000,
    default: 2_000,
    description:
      "Research runs that may wait for a slot per instance; beyond it a run is refused with 503 queue_full and Retry-After. Waiting counts against the run's SEARCH_DEADLINE_MS: a run expected not to finish within it (from recent runs' times) is refused the same way, at once.",
  }),
  WS_MAX_SOCKETS_PER_KEY: Type.Integer({ minimum: 1, maximum: 10_000, default: 20, description: "Open search WebSockets per API key." }),
  LLM_PROVIDER: Type.Optional(
    Type.Union([Type.Literal("none"), Type.Literal("openai"), Type.Literal("anthropic")], {
      description:
        "none, openai (any OpenAI-compatible server) or anthropic. Absent: openai when OPENAI_API_KEY or OPENAI_BASE_URL is set, anthropic when ANTHROPIC_API_KEY is, else none (extractive answers).",
    }),
  ),
  LLM_MODEL: Type.Optional(Type.String({ minLength: 1, description: "Model name, e.g. gpt-4o-mini, llama3.1, claude-sonnet-4-5." })),
  LLM_VISION: Type.Boolean({ default: false, description: "Whether the model reads images (true or false)." }),
  OPENAI_BASE_URL: Type.Optional(
    Type.String({
      pattern: "^https?://",
      description: "OpenAI-compatible API base URL (default https://api.openai.com/v1): vLLM, llama.cpp, Ollama, OpenRouter...",
    }),
  ),
  OPENAI_API_KEY: Type.Optional(Type.String({ minLength: 1, description: "API key of the OpenAI-compatible server." })),
  ANTHROPIC_API_KEY: Type.Optional(Type.String({ minLength: 1, description: "Anthropic API key." })),
  ANTHROPIC_BASE_URL: Type.Optional(Type.String({ pattern: "^https?://", description: "Anthropic API base URL (default Anthropic's)." })),
  PRICE_PER_MILLION_TOKENS: Type.Number({
    minimum: 0,
    maximum: 10_000,
    default: 2,
    description: "What a paying account is charged per million tokens, in US dollars (the free plan is never charged).",
  }),
  PUBLISHER_SHARE: Type.Number({
    minimum: 0,
    maximum: 1,
    default: 0.7,
    description: "The share of a paying consumer's cost credited to the publisher of a marketplace endpoint they run.",
  }),
  SESSION_DAYS: Type.Integer({ minimum: 1, maximum: 90, default: 14, description: "How long a dashboard sign-in lasts." }),
  DASHBOARD_CREDIT: Type.Boolean({
    default: true,
    description: 'Whether the dashboard\'s "add credit" form works: a stand-in for payment; turn it off where credit is sold.',
  }),
  DASHBOARD_PER_MINUTE: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 120,
    description: "Calls a minute a signed-in dashboard may make besides research (which counts against the plan, as with a key).",
  }),
  SIGNUPS_PER_MINUTE: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 10,
    description: "Dashboard sign-ups per client address per minute.",
  }),
  SIGNINS_PER_MINUTE: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 20,
    description: "Dashboard sign-in attempts per client address per minute (and a quarter of it, at least 5, per email).",
  }),
  CLIENT_IP_HEADER: Type.Optional(
    Type.String({
      pattern: "^[A-Za-z0-9-]+$",
      description:
        "A header carrying the client's address set by a trusted proxy (Fly: fly-client-ip), for sign-in limits and abuse detection. It wins over TRUST_PROXY. Absent: see TRUST_PROXY.",
    }),
  ),
  TRUST_PROXY: Type.Boolean({
    default: false,
    description:
      "Whether a proxy in front sets the client's address: true reads the first hop of Fly-Client-IP, else of X-Forwarded-For (set it only when the proxy overwrites that header, as Fly's does); false uses the socket peer.",
  }),
  ABUSE_ACTION: Type.Union([Type.Literal("report"), Type.Literal("throttle"), Type.Literal("suspend")], {
    default: "report",
    description:
      "What a limit-evasion flag does to the Free accounts in it: report (a flag row only, see `cli abuse report`), throttle (they share one Free bucket) or suspend. Paid accounts are never acted on.",
  }),
  ABUSE_WINDOWS_SECONDS: Type.String({
    pattern: "^\\s*\\d+(\\s*,\\s*\\d+){0,3}\\s*$",
    default: "60,600",
    description:
      "Sliding windows of limit-evasion detection, in seconds (up to 4, each 10 to 86400): Free accounts are flagged when together they pass the Free limit over a window.",
  }),
  ABUSE_MIN_ACCOUNTS: Type.Integer({
    minimum: 2,
    maximum: 1_000,
    default: 3,
    description: "Distinct Free accounts that must share an address's coordinated work, or one piece of work, before a flag is raised.",
  }),
  ABUSE_HASH_KEY: Type.Optional(
    Type.String({
      minLength: 16,
      description:
        "Key of the keyed hashes (HMAC-SHA256) abuse detection stores instead of client addresses and prompts. Absent: a random key made once and kept in the database.",
    }),
  ),
  ABUSE_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3_650,
    default: 30,
    description: "Days a limit-evasion flag (with its hashed evidence) is kept.",
  }),
  TASK_WORKERS: Type.Integer({
    minimum: 0,
    maximum: 1_000,
    default: 4,
    description:
      "Tasks (POST /v1/tasks) this instance runs at once, taken from the queue every instance shares; 0 takes none (the instance still creates and serves them). Their research runs share the instance's RUN_CONCURRENCY with the calls it answers.",
  }),
  TASK_CONCURRENCY_FREE: Type.Integer({
    minimum: 1,
    maximum: 1_000,
    default: 1,
    description: "Tasks of one Free account running at once, across the fleet.",
  }),
  TASK_CONCURRENCY_PRO: Type.Integer({
    minimum: 1,
    maximum: 1_000,
    default: 5,
    description: "Tasks of one Pro account running at once, across the fleet.",
  }),
  TASK_CONCURRENCY_ENTERPRISE: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 20,
    description: "Tasks of one Enterprise account running at once, across the fleet.",
  }),
  TASK_QUEUED_MAX: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 1_000,
    description: "Tasks one account may have waiting to run; creating another is a 429 until some have started or been canceled.",
  }),
  TASK_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3_650,
    default: 30,
    description: "Days a finished task, its result and its events are kept.",
  }),
  TASK_HEARTBEAT_SECONDS: Type.Integer({
    minimum: 10,
    maximum: 3_600,
    default: 30,
    description:
      "How often a running task's instance tells the queue it is alive: a task whose instance stops telling (killed, cut off) is run again by another instance within about twice this.",
  }),
  TASK_POLL_SECONDS: Type.Number({
    minimum: 0.5,
    maximum: 60,
    default: 2,
    description: "How often an idle instance asks the queue for tasks (a task created on this instance wakes it at once).",
  }),
  WEBHOOK_WORKERS: Type.Integer({
    minimum: 0,
    maximum: 1_000,
    default: 4,
    description: "Webhook deliveries this instance makes at once, from the queue every instance shares; 0 makes none.",
  }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 10_000,
    description: "How long a webhook's receiver has to answer one attempt.",
  }),
  WEBHOOK_RETRY_BASE_SECONDS: Type.Number({
    minimum: 0.1,
    maximum: 3_600,
    default: 5,
    description: "The wait before a refused webhook is tried the second time; each later wait is 5 times the one before, at most 3 hours.",
  }),
  WEBHOOK_RETRY_HOURS: Type.Number({
    minimum: 0.001,
    maximum: 168,
    default: 24,
    description: "How long a webhook message is tried before it is given up (its owner can deliver it again).",
  }),
  MONITOR_MIN_EVERY_MINUTES: Type.Number({
    minimum: 0.01,
    maximum: 1_440,
    default: 5,
    description:
      "The shortest schedule a monitor (POST /v1/monitors) may have, in minutes: `every_minutes` below it, or a cron that fires more often, is refused. An operator's setting (a fraction of a minute suits a test).",
  }),
  MONITOR_TICK_SECONDS: Type.Number({
    minimum: 0.1,
    maximum: 3_600,
    default: 30,
    description:
      "How often an instance that runs tasks (TASK_WORKERS above 0) looks for monitors whose run is due; a run starts up to this late.",
  }),
  LOG_LEVEL: Type.Union(LogLevel.anyOf, { default: "info", description: "debug, info, warn, error or silent." }),
  METRICS_PORT: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 65535,
      description:
        "Serve Prometheus metrics (GET /metrics) on this port, a server of its own beside the API's, never on PORT. Absent: no metrics are kept or served. With WEB_CONCURRENCY above 1, worker N serves on METRICS_PORT + N - 1. See docs/operate/metrics.md.",
    }),
  ),
  METRICS_HOST: Type.String({
    minLength: 1,
    default: "::",
    description:
      "Address the metrics port binds. The default, every IPv6 and IPv4 address, is what Fly's scraper reaches over the private network; the public proxy only forwards the services fly.toml declares.",
  }),
});

export type Env = Static<typeof EnvSchema>;
export type LogLevelName = Static<typeof LogLevel>;

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Server processes on this machine (WEB_CONCURRENCY), and this process's number when it is one of them (src/ops/supervisor.ts). */
  readonly web: { readonly concurrency: number; readonly worker: number | undefined };
  readonly publicBaseUrl: string | undefined;
  readonly dataDir: string;
  readonly database: { readonly url: string | undefined; readonly poolMax: number };
  readonly rateLimit: {
    readonly redisUrl: string | undefined;
    readonly upstash: { readonly url: string; readonly token: string } | undefined;
    readonly failMode: "open" | "closed";
    readonly timeoutMs: number;
    readonly keyPrefix: string;
    readonly peakInflightThreshold: number;
    readonly peakFreeRefillFactor: number;
  };
  readonly authCacheTtlMs: number;
  readonly maxBodyBytes: number;
  readonly idleTimeoutSeconds: number;
  readonly shutdownTimeoutMs: number;
  /** On SIGTERM, how long the instance stays not ready but serving before it stops accepting. */
  readonly drainGraceMs: number;
  readonly logLevel: LogLevelName;
  /** Prometheus metrics on a port of their own (src/observe/); undefined: off. */
  readonly metrics: { readonly port: number; readonly host: string } | undefined;
  readonly fetch: {
    readonly allowHosts: ReadonlySet<string>;
    readonly allowedPorts: ReadonlySet<number>;
    readonly timeoutMs: number;
    readonly firstByteMs: number;
    readonly maxBytes: number;
    readonly maxRedirects: number;
    readonly maxConcurrency: number;
    readonly maxPerHost: number;
    readonly userAgent: string;
  };
  readonly contentsMaxAgeSeconds: number;
  /** Bytes of hot pages held in memory (CONTENTS_MEMORY_CACHE_MB). */
  readonly hotPagesBytes: number;
  readonly extraction: { readonly workers: number; readonly timeoutMs: number; readonly idleMs: number };
  readonly pricing: { readonly perMillionTokens: number; readonly publisherShare: number };
  /** Where a call comes from (http/client-address.ts): sign-in limits and abuse detection read it. */
  readonly clientAddress: { readonly trustProxy: boolean; readonly header: string | undefined };
  /** Tasks: research run off the request path, from the shared job queue (src/tasks/). */
  readonly tasks: {
    readonly workers: number;
    /** Running tasks per account across the fleet, by plan. */
    readonly concurrency: { readonly free: number; readonly pro: number; readonly enterprise: number };
    readonly queuedMax: number;
    readonly retentionDays: number;
    readonly heartbeatSeconds: number;
    readonly pollSeconds: number;
  };
  /** Webhook deliveries (src/webhooks/). */
  readonly webhooks: { readonly workers: number; readonly timeoutMs: number; readonly retryBaseMs: number; readonly retryWindowMs: number };
  /** Monitors: task bodies run on a schedule (src/tasks/monitors.ts). */
  readonly monitors: { readonly minEveryMinutes: number; readonly tickSeconds: number };
  /** Limit-evasion detection across Free accounts (src/abuse/). */
  readonly abuse: {
    readonly action: "report" | "throttle" | "suspend";
    readonly windowsSeconds: readonly number[];
    readonly minAccounts: number;
    readonly hashKey: string | undefined;
    readonly retentionDays: number;
  };
  readonly dashboard: {
    readonly sessionDays: number;
    readonly credit: boolean;
    readonly signupsPerMinute: number;
    readonly signinsPerMinute: number;
    readonly perMinute: number;
  };
  readonly search: {
    readonly providers: readonly ProviderName[];
    readonly searxngUrl: string | undefined;
    readonly brave: { readonly apiKey: string | undefined; readonly url: string };
    readonly tavily: { readonly apiKey: string | undefined; readonly url: string };
    readonly exa: { readonly apiKey: string | undefined; readonly url: string };
    readonly wikipediaUrl: string;
    readonly deadlineMs: number;
    readonly providerTimeoutMs: number;
    readonly hedgeAfterMs: number;
    readonly hedging: boolean;
    /** Going on without a straggler (research/quorum.ts). */
    readonly quorum: {
      readonly enabled: boolean;
      readonly share: number;
      readonly graceFactor: number;
      readonly graceMinMs: number;
      readonly graceMaxMs: number;
    };
    readonly resultsPerQuery: number;
    readonly readPages: number;
    readonly readConcurrency: number;
    readonly readBudgetMs: number;
    readonly earlyReads: boolean;
    /** Going on without the slowest page reads (research/read-grace.ts). */
    readonly readGrace: {
      readonly enabled: boolean;
      readonly share: number;
      readonly graceFactor: number;
      readonly graceMinMs: number;
      readonly graceMaxMs: number;
    };
    readonly tokenBudget: number;
    readonly maxPassages: number;
    readonly imageMaxBytes: number;
    readonly maxSocketsPerKey: number;
  };
  /** Admission of research runs (research/run/queue.ts). */
  readonly runs: { readonly concurrency: number; readonly queueMax: number };
  readonly llm: {
    readonly provider: "openai" | "anthropic";
    readonly model: string;
    readonly baseUrl: string | undefined;
    readonly apiKey: string | undefined;
    readonly vision: boolean;
  } | null;
}

export type ProviderName = "local" | "searxng" | "brave" | "tavily" | "exa" | "wikipedia";

/** `host:port` pairs, lowercase, IPv6 in brackets; throws on an entry without a port. */
export function parseHostPorts(list: string): Set<string> {
  const out = new Set<string>();
  for (const entry of list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    let url: URL;
    try {
      url = new URL(`http://${entry}`);
    } catch {
      throw new Error(`"${entry}" is not host:port`);
    }
    const explicitPort = /:(\d{1,5})$/.exec(entry)?.[1];
    if (!explicitPort || url.pathname !== "/") throw new Error(`"${entry}" is not host:port`);
    out.add(`${url.hostname.toLowerCase()}:${Number(explicitPort)}`);
  }
  return out;
}

const PROXY_VARIABLES = ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid environment:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

/** Environment strings to the schema's types; what cannot convert is left as a string for the check to name. */
function convert(schema: TSchema, raw: string): unknown {
  const type = (schema as { type?: string }).type;
  if (type === "integer") return /^-?\d+$/.test(raw) ? Number(raw) : raw;
  if (type === "number") return raw.trim() !== "" && Number.isFinite(Number(raw)) ? Number(raw) : raw;
  if (type === "boolean") {
    if (/^(true|1|yes|on)$/i.test(raw)) return true;
    if (/^(false|0|no|off)$/i.test(raw)) return false;
  }
  return raw;
}

function describeRule(schema: TSchema): string {
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.anyOf)) return `one of ${(s.anyOf as { const: unknown }[]).map((o) => o.const).join(", ")}`;
  const parts: string[] = [];
  if (s.type === "integer") parts.push("an integer");
  if (s.type === "number") parts.push("a number");
  if (typeof s.minimum === "number") parts.push(`>= ${s.minimum}`);
  if (typeof s.exclusiveMinimum === "number") parts.push(`> ${s.exclusiveMinimum}`);
  if (typeof s.maximum === "number") parts.push(`<= ${s.maximum}`);
  if (typeof s.pattern === "string") parts.push(`matching ${s.pattern}`);
  if (s.type === "string" && s.minLength) parts.push("non-empty");
  return parts.join(" ") || "valid";
}

export function loadConfig(
  environment: Record<string, string | undefined>,
  host: { cpus: number; memoryBytes: number } = thisHost(),
): Config {
  const raw: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, schema] of Object.entries(EnvSchema.properties)) {
    const value = environment[name];
    // An empty variable counts as unset: deploy tools often export NAME= for "nothing".
    if (value === undefined || value.trim() === "") continue;
    raw[name] = convert(schema, value.trim());
  }
  const env = Value.Default(EnvSchema, raw) as Env;
  for (const [name, schema] of Object.entries(EnvSchema.properties)) {
    const value = (env as Record<string, unknown>)[name];
    if (value === undefined) continue;
    if (!Value.Check(schema, value))
      problems.push(`${name} must be ${describeRule(schema)} (got ${JSON.stringify(String(value)).slice(0, 80)})`);
  }
  if (Boolean(env.UPSTASH_REDIS_REST_URL) !== Boolean(env.UPSTASH_REDIS_REST_TOKEN)) {
    problems.push("UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together");
  }
  if (env.REDIS_URL && env.UPSTASH_REDIS_REST_URL) {
    problems.push("REDIS_URL and UPSTASH_REDIS_REST_URL are both set: choose one rate-limit store");
  }
  let allowHosts = new Set<string>();
  try {
    allowHosts = parseHostPorts(env.FETCH_ALLOW_HOSTS);
  } catch (error) {
    problems.push(`FETCH_ALLOW_HOSTS: ${(error as Error).message}`);
  }
  const providers = [...new Set(env.SEARCH_PROVIDERS.split(",").map((p) => p.trim()))] as ProviderName[];
  const needs: [ProviderName, string, unknown][] = [
    ["searxng", "SEARXNG_URL", env.SEARXNG_URL],
    ["brave", "BRAVE_API_KEY", env.BRAVE_API_KEY],
    ["tavily", "TAVILY_API_KEY", env.TAVILY_API_KEY],
    ["exa", "EXA_API_KEY", env.EXA_API_KEY],
  ];
  for (const [provider, setting, value] of needs)
    if (providers.includes(provider) && !value) problems.push(`SEARCH_PROVIDERS includes ${provider}, which needs ${setting}`);
  const llmProvider =
    env.LLM_PROVIDER ?? (env.OPENAI_API_KEY || env.OPENAI_BASE_URL ? "openai" : env.ANTHROPIC_API_KEY ? "anthropic" : "none");
  if (llmProvider !== "none" && !env.LLM_MODEL)
    problems.push(`LLM_MODEL must name the model when a language model (${llmProvider}) is configured`);
  if (llmProvider === "anthropic" && !env.ANTHROPIC_API_KEY) problems.push("LLM_PROVIDER anthropic needs ANTHROPIC_API_KEY");
  // fetch() honours these, and a proxy resolves names itself: the SSRF guard's checked address would be bypassed.
  for (const name of PROXY_VARIABLES) {
    if (environment[name])
      problems.push(`${name} is set: page fetching connects to the addresses it has checked and cannot go through a proxy; unset it`);
  }
  const abuseWindows = [...new Set(env.ABUSE_WINDOWS_SECONDS.split(",").map((w) => Number(w.trim())))].sort((a, b) => a - b);
  if (abuseWindows.some((w) => w < 10 || w > 86_400)) problems.push("ABUSE_WINDOWS_SECONDS: each window is 10 to 86400 seconds");
  // Several processes are a fleet of their own: they need what a fleet shares. Asked for without it, the start is
  // refused (the operator meant several); by default, one process runs instead, as before WEB_CONCURRENCY existed.
  const sharedLimiter = Boolean(env.REDIS_URL || env.UPSTASH_REDIS_REST_URL);
  const concurrency = env.WEB_CONCURRENCY ?? (env.DATABASE_URL && sharedLimiter ? Math.min(256, Math.max(1, host.cpus)) : 1);
  if (concurrency > 1 && !env.DATABASE_URL)
    problems.push(
      `WEB_CONCURRENCY=${concurrency} needs DATABASE_URL: the embedded database (PGlite in DATA_DIR) belongs to one process; set DATABASE_URL to a Postgres, or WEB_CONCURRENCY=1`,
    );
  if (concurrency > 1 && !sharedLimiter)
    problems.push(
      `WEB_CONCURRENCY=${concurrency} needs REDIS_URL (or UPSTASH_REDIS_REST_URL): with the in-memory rate limiter each process would admit the whole limit; set one, or WEB_CONCURRENCY=1`,
    );
  const workerText = environment[WEB_WORKER_ENV]?.trim();
  const worker = workerText ? Number(workerText) : undefined;
  if (worker !== undefined && !(Number.isInteger(worker) && worker >= 1 && worker <= concurrency))
    problems.push(
      `${WEB_WORKER_ENV} is set only by the supervisor of WEB_CONCURRENCY processes (got ${JSON.stringify(workerText)}); unset it`,
    );
  // Each process of several counts its share of the machine, so together they size themselves as one did.
  const share = { cpus: host.cpus / concurrency, memoryBytes: host.memoryBytes / concurrency };
  if (env.SEARCH_GRACE_MIN_MS > env.SEARCH_GRACE_MAX_MS)
    problems.push(`SEARCH_GRACE_MIN_MS (${env.SEARCH_GRACE_MIN_MS}) must not exceed SEARCH_GRACE_MAX_MS (${env.SEARCH_GRACE_MAX_MS})`);
  if (env.SEARCH_READ_GRACE_MIN_MS > env.SEARCH_READ_GRACE_MAX_MS)
    problems.push(
      `SEARCH_READ_GRACE_MIN_MS (${env.SEARCH_READ_GRACE_MIN_MS}) must not exceed SEARCH_READ_GRACE_MAX_MS (${env.SEARCH_READ_GRACE_MAX_MS})`,
    );
  if (problems.length > 0) throw new ConfigError(problems);

  return {
    port: env.PORT,
    host: env.HOST,
    web: { concurrency, worker },
    publicBaseUrl: env.PUBLIC_BASE_URL?.replace(/\/+$/, ""),
    dataDir: env.DATA_DIR,
    database: { url: env.DATABASE_URL, poolMax: env.DATABASE_POOL_MAX },
    rateLimit: {
      redisUrl: env.REDIS_URL,
      upstash:
        env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN
          ? { url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN }
          : undefined,
      failMode: env.RATE_LIMIT_FAIL_MODE,
      timeoutMs: env.RATE_LIMIT_TIMEOUT_MS,
      keyPrefix: env.RATE_LIMIT_KEY_PREFIX,
      peakInflightThreshold: env.PEAK_INFLIGHT_THRESHOLD,
      peakFreeRefillFactor: env.PEAK_FREE_REFILL_FACTOR,
    },
    authCacheTtlMs: env.AUTH_CACHE_TTL_MS,
    maxBodyBytes: env.MAX_BODY_BYTES,
    idleTimeoutSeconds: env.IDLE_TIMEOUT_SECONDS,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    drainGraceMs: env.DRAIN_GRACE_MS,
    logLevel: env.LOG_LEVEL,
    metrics: env.METRICS_PORT === undefined ? undefined : { port: env.METRICS_PORT, host: env.METRICS_HOST },
    fetch: {
      allowHosts,
      allowedPorts: new Set(env.FETCH_PORTS.split(",").map(Number)),
      timeoutMs: env.FETCH_TIMEOUT_MS,
      firstByteMs: env.FETCH_FIRST_BYTE_MS,
      maxBytes: env.FETCH_MAX_BYTES,
      maxRedirects: 5,
      maxConcurrency: env.FETCH_MAX_CONCURRENCY,
      maxPerHost: env.FETCH_MAX_PER_HOST,
      userAgent: env.FETCH_USER_AGENT,
    },
    contentsMaxAgeSeconds: env.CONTENTS_MAX_AGE_SECONDS,
    hotPagesBytes: env.CONTENTS_MEMORY_CACHE_MB * 1024 * 1024,
    extraction: {
      workers: concurrency > 1 && !environment.EXTRACT_WORKERS?.trim() ? Math.max(1, Math.round(share.cpus)) : env.EXTRACT_WORKERS,
      timeoutMs: env.EXTRACT_TIMEOUT_MS,
      idleMs: env.EXTRACT_IDLE_MS,
    },
    pricing: { perMillionTokens: env.PRICE_PER_MILLION_TOKENS, publisherShare: env.PUBLISHER_SHARE },
    clientAddress: { trustProxy: env.TRUST_PROXY, header: env.CLIENT_IP_HEADER?.toLowerCase() },
    abuse: {
      action: env.ABUSE_ACTION,
      windowsSeconds: abuseWindows,
      minAccounts: env.ABUSE_MIN_ACCOUNTS,
      hashKey: env.ABUSE_HASH_KEY,
      retentionDays: env.ABUSE_RETENTION_DAYS,
    },
    tasks: {
      workers: env.TASK_WORKERS,
      concurrency: { free: env.TASK_CONCURRENCY_FREE, pro: env.TASK_CONCURRENCY_PRO, enterprise: env.TASK_CONCURRENCY_ENTERPRISE },
      queuedMax: env.TASK_QUEUED_MAX,
      retentionDays: env.TASK_RETENTION_DAYS,
      heartbeatSeconds: env.TASK_HEARTBEAT_SECONDS,
      pollSeconds: env.TASK_POLL_SECONDS,
    },
    webhooks: {
      workers: env.WEBHOOK_WORKERS,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: Math.round(env.WEBHOOK_RETRY_BASE_SECONDS * 1000),
      retryWindowMs: Math.round(env.WEBHOOK_RETRY_HOURS * 3_600_000),
    },
    monitors: { minEveryMinutes: env.MONITOR_MIN_EVERY_MINUTES, tickSeconds: env.MONITOR_TICK_SECONDS },
    dashboard: {
      sessionDays: env.SESSION_DAYS,
      credit: env.DASHBOARD_CREDIT,
      signupsPerMinute: env.SIGNUPS_PER_MINUTE,
      signinsPerMinute: env.SIGNINS_PER_MINUTE,
      perMinute: env.DASHBOARD_PER_MINUTE,
    },
    search: {
      providers,
      searxngUrl: env.SEARXNG_URL,
      brave: { apiKey: env.BRAVE_API_KEY, url: env.BRAVE_URL },
      tavily: { apiKey: env.TAVILY_API_KEY, url: env.TAVILY_URL },
      exa: { apiKey: env.EXA_API_KEY, url: env.EXA_URL },
      wikipediaUrl: env.WIKIPEDIA_URL,
      deadlineMs: env.SEARCH_DEADLINE_MS,
      providerTimeoutMs: env.PROVIDER_TIMEOUT_MS,
      hedgeAfterMs: env.HEDGE_AFTER_MS,
      hedging: env.SEARCH_HEDGING,
      quorum: {
        enabled: env.SEARCH_QUORUM,
        share: env.SEARCH_QUORUM_SHARE,
        graceFactor: env.SEARCH_GRACE_FACTOR,
        graceMinMs: env.SEARCH_GRACE_MIN_MS,
        graceMaxMs: env.SEARCH_GRACE_MAX_MS,
      },
      resultsPerQuery: env.SEARCH_RESULTS_PER_QUERY,
      readPages: env.SEARCH_READ_PAGES,
      readConcurrency: env.SEARCH_READ_CONCURRENCY,
      readBudgetMs: env.SEARCH_READ_BUDGET_MS,
      earlyReads: env.SEARCH_EARLY_READS,
      readGrace: {
        enabled: env.SEARCH_READ_GRACE,
        share: env.SEARCH_READ_GRACE_SHARE,
        graceFactor: env.SEARCH_READ_GRACE_FACTOR,
        graceMinMs: env.SEARCH_READ_GRACE_MIN_MS,
        graceMaxMs: env.SEARCH_READ_GRACE_MAX_MS,
      },
      tokenBudget: env.SEARCH_TOKEN_BUDGET,
      maxPassages: env.SEARCH_MAX_PASSAGES,
      imageMaxBytes: env.IMAGE_MAX_BYTES,
      maxSocketsPerKey: env.WS_MAX_SOCKETS_PER_KEY,
    },
    runs: { concurrency: env.RUN_CONCURRENCY ?? defaultRunConcurrency(share, llmProvider !== "none"), queueMax: env.RUN_QUEUE_MAX },
    llm:
      llmProvider === "none"
        ? null
        : {
            provider: llmProvider,
            model: env.LLM_MODEL!,
            baseUrl: llmProvider === "openai" ? env.OPENAI_BASE_URL : env.ANTHROPIC_BASE_URL,
            apiKey: llmProvider === "openai" ? env.OPENAI_API_KEY : env.ANTHROPIC_API_KEY,
            vision: env.LLM_VISION,
          },
  };
}

/** The variables with their defaults and descriptions, for `cli config` (the reference page reads EnvSchema itself). */
export function describeEnvironment(): { name: string; default: unknown; description: string }[] {
  return Object.entries(EnvSchema.properties).map(([name, schema]) => ({
    name,
    default: (schema as { default?: unknown }).default,
    description: String((schema as { description?: string }).description ?? ""),
  }));
}
