/** The wire shape of GET /v1/usage. */
import { t } from "elysia";

const ClientErrors = t.Integer({
  description: "Calls answered with a 4xx status (the request was refused: bad input, a limit, not found).",
});
const ServerErrors = t.Integer({ description: "Calls answered with a 5xx status (the service or a provider failed)." });
const LatencyP50 = t.Nullable(
  t.Integer({ description: "Median latency of the calls in milliseconds; null when none recorded one (calls before it was kept)." }),
);
const LatencyP95 = t.Nullable(
  t.Integer({ description: "95th percentile latency of the calls in milliseconds; null when none recorded one." }),
);

const Day = t.Object({
  date: t.String(),
  calls: t.Integer(),
  client_errors: ClientErrors,
  server_errors: ServerErrors,
  tokens: t.Integer(),
  cost: t.Number({ description: "US dollars." }),
  latency_p50_ms: LatencyP50,
  latency_p95_ms: LatencyP95,
  earnings: t.Number({ description: "US dollars earned as a publisher (never narrowed by the filters)." }),
  earning_calls: t.Integer(),
});

const RecentCall = t.Object({
  route: t.String(),
  status: t.Integer(),
  tokens: t.Integer(),
  cost: t.Number(),
  api_id: t.Nullable(t.Integer({ description: "The designed endpoint version the call ran, if it ran one of yours." })),
  published_id: t.Nullable(t.String({ description: "The marketplace listing the call ran, if it ran a published endpoint." })),
  public_stub: t.Nullable(
    t.String({
      description: "That listing's public stub (its address on the marketplace); null when it ran none, or the listing is gone.",
    }),
  ),
  key_id: t.Nullable(t.String({ description: "The API key that made the call; null for a dashboard session." })),
  latency_ms: t.Nullable(t.Integer({ description: "How long the call took in milliseconds; null for calls before it was kept." })),
  request_id: t.Nullable(t.String()),
  auth: t.Union([t.Literal("key"), t.Literal("session")], {
    description: "How the call was authenticated: an API key, or a dashboard session (a task counts as what started it).",
  }),
  at: t.String(),
});

export const UsageQuery = t.Object({
  days: t.Optional(t.Numeric({ minimum: 1, maximum: 365, description: "How many days back, today included (default 30)." })),
  // Read by queryBoolean, as FastAPI reads a bool (1/0, true/false, yes/no, on/off); OpenAPI says boolean.
  include_dashboard: t.Optional(
    t.Union([t.Boolean(), t.String({ maxLength: 10 })], {
      description:
        "Also count the dashboard's own calls (a signed-in session's calls that are not billable: its reads of keys, listings, the balance) in days, totals and recent (default false).",
    }),
  ),
  key_id: t.Optional(
    t.String({
      pattern: "^[A-Za-z0-9_-]+$",
      minLength: 1,
      maxLength: 64,
      description: "Only the calls made with this API key (one of yours, from GET /v1/keys; any other id matches no calls).",
    }),
  ),
  route: t.Optional(
    t.String({
      pattern: "^[ -~]+$",
      minLength: 1,
      maxLength: 200,
      description: 'Only the calls to this route, as `routes` and `recent` name it (e.g. "POST /v1/search").',
    }),
  ),
  api_id: t.Optional(
    t.Numeric({ minimum: 1, maximum: 2_147_483_647, description: "Only the runs of this designed endpoint version (its api_id)." }),
  ),
});

export const UsageReport = t.Object({
  since: t.String(),
  until: t.String(),
  days: t.Array(Day),
  totals: t.Object({
    calls: t.Integer(),
    client_errors: ClientErrors,
    server_errors: ServerErrors,
    tokens: t.Integer(),
    cost: t.Number(),
    latency_p50_ms: LatencyP50,
    latency_p95_ms: LatencyP95,
    earnings: t.Number(),
    earning_calls: t.Integer(),
    dashboard_calls: t.Integer({
      description:
        "The dashboard's own calls in the window (a session's calls that are not billable), counted apart: in calls only with include_dashboard.",
    }),
  }),
  routes: t.Array(t.Object({ route: t.String(), calls: t.Integer() }), {
    description:
      "The routes called in the window, busiest first (at most 100), with their calls: what `route` may be set to. Narrowed by key_id, not by route or api_id.",
  }),
  recent: t.Array(RecentCall, { description: "The latest calls (at most 20), through the filters." }),
});
