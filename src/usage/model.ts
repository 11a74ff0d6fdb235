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
  at: t.String(),
});

export const UsageQuery = t.Object({
  days: t.Optional(t.Numeric({ minimum: 1, maximum: 365, description: "How many days back, today included (default 30)." })),
});

export const UsageReport = t.Object({
  since: t.String(),
  until: t.String(),
  days: t.Array(Day),
  totals: t.Object({ calls: t.Integer(), tokens: t.Integer(), cost: t.Number(), earnings: t.Number(), earning_calls: t.Integer() }),
  recent: t.Array(RecentCall),
});
