/** The wire shape of GET /v1/usage. */
import { t } from "elysia";

const Day = t.Object({
  date: t.String(),
  calls: t.Integer(),
  tokens: t.Integer(),
  cost: t.Number({ description: "US dollars." }),
  earnings: t.Number({ description: "US dollars earned as a publisher." }),
  earning_calls: t.Integer(),
});

const RecentCall = t.Object({
  route: t.String(),
  status: t.Integer(),
  tokens: t.Integer(),
  cost: t.Number(),
  api_id: t.Nullable(t.Integer({ description: "The designed endpoint version the call ran, if it ran one of yours." })),
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
});

export const UsageReport = t.Object({
  since: t.String(),
  until: t.String(),
  days: t.Array(Day),
  totals: t.Object({
    calls: t.Integer(),
    tokens: t.Integer(),
    cost: t.Number(),
    earnings: t.Number(),
    earning_calls: t.Integer(),
    dashboard_calls: t.Integer({
      description:
        "The dashboard's own calls in the window (a session's calls that are not billable), counted apart: in calls only with include_dashboard.",
    }),
  }),
  recent: t.Array(RecentCall),
});
