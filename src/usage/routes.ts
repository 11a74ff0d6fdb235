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
        ),
      {
        query: UsageQuery,
        response: { 200: UsageReport },
        detail: secured({
          tags: ["Account"],
          summary: "Usage by day (calls, tokens, cost), earnings as a publisher, and the latest calls",
        }),
      },
    );
}
