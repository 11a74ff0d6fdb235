/** The API's answers as the dashboard reads them (see /openapi.json). */

export interface Account {
  id: string;
  name: string;
  plan: "free" | "pro" | "enterprise";
  plan_label: string;
  rate_limit_per_minute: number;
  balance: number;
  key_id: string | null;
  key_prefix: string | null;
  created_at: string;
}

export interface Session {
  account: Account;
  email: string;
  csrf_token: string;
}

export interface ApiKey {
  id: string;
  name: string | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** When the key stops working (null: never); for a rotated key, the end of its grace period. */
  expires_at: string | null;
  /** The key a rotation made to succeed this one. */
  replaced_by: string | null;
}

export type CreatedKey = ApiKey & { api_key: string };

export type RotatedKey = CreatedKey & { rotated_from: ApiKey };

export interface UsageDay {
  date: string;
  calls: number;
  /** Calls answered 4xx, and 5xx. */
  client_errors: number;
  server_errors: number;
  tokens: number;
  cost: number;
  /** Latency percentiles in ms; null where no call recorded one. */
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
  earnings: number;
  earning_calls: number;
}

export interface RecentCall {
  route: string;
  status: number;
  tokens: number;
  cost: number;
  api_id: number | null;
  published_id: string | null;
  public_stub: string | null;
  key_id: string | null;
  latency_ms: number | null;
  request_id: string | null;
  auth: "key" | "session";
  at: string;
}

export interface Usage {
  since: string;
  until: string;
  days: UsageDay[];
  /** dashboard_calls: the dashboard's own requests (a session's calls that are not research), left out of calls. */
  totals: Omit<UsageDay, "date"> & { dashboard_calls: number };
  /** The routes called in the window (through the key filter): the route filter's choices. */
  routes: { route: string; calls: number }[];
  recent: RecentCall[];
}

export interface Source {
  id: number;
  metadata: { title: string; url: string; content: string };
}

/** One search provider's share of a run (the engine's ProviderReport). */
export interface ProviderReport {
  name: string;
  calls: number;
  succeeded: number;
  failed: number;
  hedges: number;
  skipped_by_breaker: number;
  /** Calls the run went on without (too slow): calls = succeeded + failed + cut. */
  cut: { query: string; waited_ms: number; grace_ms: number }[];
  errors: string[];
}

/** One step of a designed endpoint's run (info.nodes): a search node tells its queries, sources and providers. */
export interface NodeReport {
  id: string;
  type: string;
  ms: number;
  queries?: string[];
  sources?: number;
  providers?: ProviderReport[];
}

/**
 * How a run went (the answer's `info`; the socket's last message with ?info=true adds request_id). Every member but
 * token_usage is the service's own, so each is optional here: an older answer, or a task stored before, may lack it.
 */
export interface RunInfo {
  token_usage: number;
  tokens?: { prompt: number; completion: number; total: number };
  model?: string;
  planner?: string;
  queries?: string[];
  timings_ms?: Record<string, number>;
  providers?: ProviderReport[];
  pages?: { read: number; from_cache: number; failed: number; cut: unknown[]; errors: string[] };
  sources_found?: number;
  /** A designed or published endpoint's run: its graph's steps in place of the search's queries, timings and providers. */
  nodes?: NodeReport[];
  notes?: string[];
  request_id?: string;
}

export interface SearchResult {
  response: string | Record<string, unknown>;
  context: Source[];
  info?: RunInfo;
}

export type InputType = "string" | "number" | "boolean";

export interface EndpointInput {
  name: string;
  type: InputType;
  required?: boolean;
  default?: string | number | boolean | null;
  description?: string | null;
}

export interface Integration {
  method: "POST";
  url: string;
  versioned_url: string;
  request_schema: unknown;
  response_schema: unknown;
  example_request: unknown;
  code: { curl: string; python: string; javascript: string };
  agent_handoff: string;
}

export interface EndpointRecord {
  id: number;
  original_prompt: string;
  api_name: string;
  stub: string;
  inputs: EndpointInput[];
  output_format: unknown;
  version: number;
  state: "draft" | "released";
  frozen_at: string | null;
  is_latest: boolean;
  is_live: boolean;
  live_version: number;
  versions: { id: number; version: number; frozen_at: string | null; is_latest: boolean; is_live: boolean }[];
  integration: Integration;
  version_notes: string | null;
  created_at: string;
  updated_at: string;
}

export interface ListingVersion {
  version: number;
  source_version: number;
  published_at: string;
  version_notes: string | null;
}

export interface Listing {
  public_stub: string;
  title: string;
  description: string;
  category: string | null;
  tags: string[];
  publisher: string;
  latest_version: number;
  versions: ListingVersion[];
  created_at: string;
  updated_at: string;
}

/** How a listing's calls are priced (read-only): the rate, and the average of its recent successful calls (null before any). */
export interface ListingPricing {
  per_million_tokens: number;
  average_tokens: number | null;
  average_cost: number | null;
  sampled_calls: number;
}

export type PricedListing = Listing & { pricing: ListingPricing };

export interface ListingDetail extends PricedListing {
  api_name: string;
  inputs: EndpointInput[];
  output_format: unknown;
  integration: Integration;
  example_request: unknown;
}

export interface ListingPage {
  items: PricedListing[];
  total: number;
  page: number;
  per_page: number;
}

/** Whether the account uses a published endpoint from its agents (GET/POST/DELETE /v1/marketplace/{stub}/subscribe). */
export interface Subscription {
  public_stub: string;
  subscribed: boolean;
}

export type TaskStatus = "queued" | "running" | "succeeded" | "failed" | "canceled";

/** A task (GET /v1/tasks/{task_id}): research started now and read later. */
export interface Task {
  id: string;
  status: TaskStatus;
  kind: "search" | "endpoint" | "published";
  /** The endpoint's stub (kind endpoint) or public stub (kind published). */
  endpoint: string | null;
  metadata: Record<string, unknown> | null;
  webhook: { url: string } | null;
  attempts: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  result: SearchResult | null;
  error: { code: string; message: string } | null;
}

/** A cursor-paged list (tasks, webhook deliveries): newest first, `next_cursor` for the page after. */
export interface CursorPage<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** The account's webhook signing secret (GET /v1/webhooks/secret). */
export interface WebhookSecret {
  secret: string;
  previous_secret_expires_at: string | null;
  rotated_at: string | null;
}

export type DeliveryStatus = "pending" | "delivered" | "failed";

export interface Delivery {
  id: string;
  event_type: string;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_latency_ms: number | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface DeliveryDetail extends Delivery {
  payload: unknown;
  attempt_log: { n: number; at: string; status: number | null; latency_ms: number; error: string | null }[];
}

export type MonitorStatus = "active" | "paused";

export type MonitorSchedule = { every_minutes: number } | { cron: string };

/** A monitor (GET /v1/monitors/{monitor_id}): a task's body run on a schedule. */
export interface Monitor {
  id: string;
  object: "monitor";
  status: MonitorStatus;
  kind: Task["kind"];
  endpoint: string | null;
  /** The task body each run runs: `prompt` for a search, `endpoint`/`published` with `inputs` otherwise. */
  request: Record<string, unknown>;
  schedule: MonitorSchedule;
  webhook: { url: string };
  metadata: Record<string, unknown> | null;
  next_run_at: string;
  /** The last run that succeeded: what the next answer is compared with. */
  last_run: { task_id: string } | null;
  created_at: string;
  updated_at: string;
}

export type MonitorChanges =
  | { kind: "fields"; fields: { path: string; before: unknown; after: unknown }[] }
  | { kind: "prose"; sources: { added: string[]; removed: string[] }; claims: { added: string[]; removed: string[] } }
  | { kind: "shape"; before: "structured" | "prose"; after: "structured" | "prose" };

/** One of a monitor's runs: its task, with how its answer compared with the one before (null until it succeeded). */
export interface MonitorRun extends Task {
  monitor: { compared: boolean; changed: boolean; changes: MonitorChanges | null } | null;
}
