/**
 * POST /v1/user-defined-service/{api_stub}: run the owner's endpoint, its
 * live version; `/v{n}` runs exactly that version, draft included. Private:
 * another account's stub is a 404. The answer has the search response's
 * shape: {response, context, info}.
 */
import { Elysia, t } from "elysia";
import type { Caller } from "../http/caller.ts";
import { notFound, ServiceError } from "../errors.ts";
import { authenticated, type AuthDeps } from "../http/auth.ts";
import { secured } from "../http/openapi.ts";
import { requestMeta } from "../http/request-context.ts";
import { waitWords } from "../http/wait-words.ts";
import { runInfoSchema } from "../search/model.ts";
import { engineFor, type SearchFaceDeps } from "../search/run.ts";
import { liveVersion } from "./lifecycle.ts";
import type { EndpointInput, Graph } from "./model.ts";
import * as q from "./queries.ts";
import { resolveCall } from "./runtime/call-inputs.ts";
import { runEndpoint, type RunnableEndpoint } from "./runtime/graph-run.ts";
import type { OutputFormat } from "./rules.ts";
import type { EndpointsContext } from "./service.ts";

export const RunResponse = t.Object({
  response: t.Unknown({ description: "An object matching the endpoint's output_format." }),
  context: t.Array(t.Object({ id: t.Integer(), metadata: t.Object({ title: t.String(), url: t.String(), content: t.String() }) })),
  info: runInfoSchema("token_usage and tokens, model, nodes (per node: type, time, queries, sources), notes."),
});

export const RunBody = t.Unknown({
  description: "The endpoint's inputs by name (see its integration.request_schema), plus optional include_domains or exclude_domains (lists of domains, one or the other).",
});

export const VERSION_SEGMENT = /^v(\d{1,6})$/;

export function runnable(row: { apiName: string; inputs: unknown[]; outputFormat: Record<string, unknown>; graph: Record<string, unknown> }): RunnableEndpoint {
  return { apiName: row.apiName, inputs: row.inputs as EndpointInput[], outputFormat: row.outputFormat as OutputFormat, graph: row.graph as unknown as Graph };
}

/** Runs one call of an endpoint to the search response shape, with the service deadline; sets the call's tokens for billing. */
export async function runCall(face: SearchFaceDeps, endpoint: RunnableEndpoint, body: unknown, request: Request) {
  const call = resolveCall(endpoint.inputs, body);
  const deadline = AbortSignal.timeout(face.deadlineMs);
  const leave = face.load.enter();
  try {
    const result = await runEndpoint(engineFor(face, requestMeta(request).id), endpoint, call, AbortSignal.any([request.signal, deadline]));
    requestMeta(request).tokens = result.info.token_usage;
    return result;
  } catch (error) {
    if (deadline.aborted) throw new ServiceError("deadline_exceeded", `the endpoint did not finish within ${waitWords(Math.round(face.deadlineMs / 1000))}`);
    throw error;
  } finally {
    leave();
  }
}

export function userServiceRoutes(auth: AuthDeps, ctx: EndpointsContext, face: SearchFaceDeps) {
  /** The version a call runs; its id goes on the call's usage record. */
  const versionFor = async (caller: Caller, stub: string, segment: string | null, request: Request) => {
    const lineage = await q.lineageByStub(ctx.db, caller.accountId, stub);
    if (!lineage) throw notFound("endpoint");
    const versions = await q.lineageVersions(ctx.db, caller.accountId, lineage.id);
    const wanted = segment === null ? liveVersion(versions) : Number(VERSION_SEGMENT.exec(segment)?.[1] ?? Number.NaN);
    const version = versions.find((v) => v.version === wanted);
    if (!version) throw notFound("endpoint version");
    requestMeta(request).apiId = version.id;
    return version;
  };
  const detail = (summary: string) => secured({ tags: ["Designed endpoints"], summary, description: "Missing required inputs: 400 naming them (optional ones as name?: type). A wrong type: 422. max_results is at least 1, floored, and cuts every top-level list." });
  return new Elysia({ prefix: "/v1/user-defined-service" })
    .use(authenticated(auth))
    .post("/:api_stub", async ({ caller, params, body, request }) => runCall(face, runnable(await versionFor(caller, params.api_stub, null, request)), body, request), {
      params: t.Object({ api_stub: t.String({ maxLength: 100 }) }),
      body: RunBody,
      response: { 200: RunResponse },
      detail: detail("Run your endpoint's live version"),
    })
    .post("/:api_stub/:version", async ({ caller, params, body, request }) => runCall(face, runnable(await versionFor(caller, params.api_stub, params.version, request)), body, request), {
      params: t.Object({ api_stub: t.String({ maxLength: 100 }), version: t.String({ maxLength: 10, description: "v1, v2, ..." }) }),
      body: RunBody,
      response: { 200: RunResponse },
      detail: detail("Run exactly version n of your endpoint (drafts included)"),
    });
}
