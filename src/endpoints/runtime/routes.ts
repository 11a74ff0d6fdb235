/**
 * POST /v1/user-defined-service/{api_stub}: run the owner's endpoint, its
 * live version; `/v{n}` runs exactly that version, draft included. Private:
 * another account's stub is a 404. The answer has the search response's
 * shape: {response, context, info}.
 */
import { Elysia, t } from "elysia";
import { authenticated, type AuthDeps } from "../../http/auth.ts";
import type { Call } from "../../http/call.ts";
import { secured } from "../../http/openapi.ts";
import type { RunDeps } from "../../research/run/hold.ts";
import { RunBody, RunResponse } from "../model.ts";
import { calledVersion } from "../reads.ts";
import { runOwned } from "./call.ts";
import type { EndpointsContext } from "../service.ts";

export function userServiceRoutes(auth: AuthDeps, ctx: EndpointsContext, runs: RunDeps) {
  const run = async (call: Call, stub: string, segment: string | null, body: unknown, signal: AbortSignal) =>
    runOwned(runs, call, stub, await calledVersion(ctx, call.caller.accountId, stub, segment), body, signal);
  const detail = (summary: string) =>
    secured(
      {
        tags: ["Designed endpoints"],
        summary,
        description:
          "Missing required inputs: 400 naming them (optional ones as name?: type). A wrong type: 422. max_results is at least 1, floored, and cuts every top-level list.",
      },
      { billable: true },
    );
  return new Elysia({ prefix: "/v1/user-defined-service" })
    .use(authenticated(auth))
    .post("/:api_stub", async ({ call, params, body, request }) => run(call, params.api_stub, null, body, request.signal), {
      params: t.Object({ api_stub: t.String({ maxLength: 100 }) }),
      body: RunBody,
      response: { 200: RunResponse },
      detail: detail("Run your endpoint's live version"),
    })
    .post(
      "/:api_stub/:version",
      async ({ call, params, body, request }) => run(call, params.api_stub, params.version, body, request.signal),
      {
        params: t.Object({ api_stub: t.String({ maxLength: 100 }), version: t.String({ maxLength: 10, description: "v1, v2, ..." }) }),
        body: RunBody,
        response: { 200: RunResponse },
        detail: detail("Run exactly version n of your endpoint (drafts included)"),
      },
    );
}
