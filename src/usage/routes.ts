/** GET /v1/usage: the caller's calls, tokens and cost by day, earnings as a publisher, and the latest calls. */
import { Elysia } from "elysia";
import { authenticated, type AuthDeps } from "../http/auth.ts";
import { secured } from "../http/openapi.ts";
import { queryBoolean } from "../http/query-boolean.ts";
import { UsageQuery, UsageReport } from "./model.ts";
import { usageReport, type UsageContext } from "./report.ts";

export function usageRoutes(auth: AuthDeps, ctx: UsageContext) {
  return new Elysia({ prefix: "/v1" })
    .use(authenticated(auth))
    .get(
      "/usage",
      async ({ caller, query }) =>
        usageReport(
          ctx,
          caller.accountId,
          query.days ?? 30,
          queryBoolean(query.include_dashboard, "include_dashboard", false) ? "all" : "api",
          { keyId: query.key_id, route: query.route, apiId: query.api_id },
        ),
      {
        query: UsageQuery,
        response: { 200: UsageReport },
        detail: secured({
          tags: ["Account"],
          summary: "Usage by day (calls, errors, tokens, cost, latency), earnings as a publisher, and the latest calls",
          description:
            "Narrowed by key_id, route or api_id (days, totals and recent; earnings as a publisher are not): `routes` lists what route may be set to, GET /v1/keys the keys.",
        }),
      },
    );
}
