/**
 * /v1/design-api: create, read, edit, version, release and delete designed endpoints.
 * As SPEC 2.6 and 4 say: answers of calls that create (a new endpoint, a new version) are
 * wrapped in `{"response": ...}`; reads and edits answer the record or the list itself.
 * Release and delete, whose bodies the spec does not show, are wrapped like creation.
 */
import { Elysia, t } from "elysia";
import { baseUrlOf } from "../http/base-url.ts";
import { authenticated, type AuthDeps } from "../http/auth.ts";
import { secured } from "../http/openapi.ts";
import { queryBoolean } from "../http/query-boolean.ts";
import { requestMeta } from "../http/request-context.ts";
import {
  ApiIdParams,
  CreateEndpointBody,
  EndpointRecordView,
  ListQuery,
  NewVersionBody,
  PatchEndpointBody,
  type EndpointInput,
  type GraphInput,
} from "./model.ts";
import { getEndpoint, lineageRecords, listEndpoints } from "./reads.ts";
import { createEndpoint, deleteEndpoint, newVersion, patchVersion, releaseVersion, type EndpointsContext } from "./service.ts";

const One = t.Object({ response: EndpointRecordView });
const Many = t.Array(EndpointRecordView);
const tags = ["Designed endpoints"];

export function designRoutes(auth: AuthDeps, ctx: EndpointsContext, publicBaseUrl: string | undefined) {
  const base = (request: Request) => baseUrlOf(request, publicBaseUrl);

  return new Elysia({ prefix: "/v1/design-api" })
    .use(authenticated(auth))
    .post(
      "",
      async ({ caller, body, request }) => {
        const input = {
          ...body,
          inputs: body.inputs as EndpointInput[] | null | undefined,
          graph: body.graph as GraphInput | null | undefined,
        };
        const { id } = await createEndpoint(
          ctx,
          caller.accountId,
          input,
          request.signal,
          ctx.log.child({ request_id: requestMeta(request).id }),
        );
        return { response: await getEndpoint(ctx, caller.accountId, id, base(request)) };
      },
      {
        body: CreateEndpointBody,
        response: { 200: One },
        detail: secured({
          tags,
          summary: "Design an endpoint from a research task in words",
          description:
            "The designer proposes api_name, a unique stub, typed inputs, output_format and an agent graph (one structured LLM call, or rules without a model); any of them given in the body override the proposal. The first version is a draft, live, version 1. An output with a list gets an optional max_results input.",
        }),
      },
    )
    .get(
      "",
      async ({ caller, query, request }) =>
        listEndpoints(ctx, caller.accountId, queryBoolean(query.all_versions, "all_versions", false), base(request)),
      {
        query: ListQuery,
        response: { 200: Many },
        detail: secured({ tags, summary: "The caller's endpoints: the highest version of each, or every version with all_versions=true" }),
      },
    )
    .get("/:api_id", async ({ caller, params, request }) => getEndpoint(ctx, caller.accountId, params.api_id, base(request)), {
      params: ApiIdParams,
      response: { 200: EndpointRecordView },
      detail: secured({ tags, summary: "One version of an endpoint" }),
    })
    .patch(
      "/:api_id",
      async ({ caller, params, body, request }) => {
        await patchVersion(ctx, caller.accountId, params.api_id, {
          ...body,
          inputs: body.inputs as EndpointInput[] | undefined,
          graph: body.graph as GraphInput | undefined,
        });
        return getEndpoint(ctx, caller.accountId, params.api_id, base(request));
      },
      {
        params: ApiIdParams,
        body: PatchEndpointBody,
        response: { 200: EndpointRecordView },
        detail: secured({
          tags,
          summary: "Edit a draft: only the fields given change, checked like creation; a released version answers 409",
        }),
      },
    )
    .delete(
      "/:api_id",
      async ({ caller, params }) => {
        const { versions } = await deleteEndpoint(ctx, caller.accountId, params.api_id);
        return { response: { id: params.api_id, deleted: true, versions_deleted: versions } };
      },
      {
        params: ApiIdParams,
        response: { 200: t.Object({ response: t.Object({ id: t.Integer(), deleted: t.Boolean(), versions_deleted: t.Integer() }) }) },
        detail: secured({ tags, summary: "Delete the whole lineage, permanently (published snapshots stay callable)" }),
      },
    )
    .get("/:api_id/versions", async ({ caller, params, request }) => lineageRecords(ctx, caller.accountId, params.api_id, base(request)), {
      params: ApiIdParams,
      response: { 200: Many },
      detail: secured({ tags, summary: "Every version of the endpoint's lineage" }),
    })
    .post(
      "/:api_id/versions",
      async ({ caller, params, body, request }) => {
        const { id } = await newVersion(ctx, caller.accountId, params.api_id, body?.version_notes ?? null);
        return { response: await getEndpoint(ctx, caller.accountId, id, base(request)) };
      },
      {
        params: ApiIdParams,
        body: NewVersionBody,
        response: { 200: One },
        detail: secured({
          tags,
          summary: "Start a new version",
          description:
            'From the draft: releases it (it becomes live) and creates the next draft as a copy. From a released version with no draft: a new draft copied from it (the revert path). With another draft present: 409 "release or delete the draft first". The body is optional (may be null) and may carry version_notes.',
        }),
      },
    )
    .post(
      "/:api_id/release",
      async ({ caller, params, request }) => {
        await releaseVersion(ctx, caller.accountId, params.api_id);
        return { response: await getEndpoint(ctx, caller.accountId, params.api_id, base(request)) };
      },
      {
        params: ApiIdParams,
        response: { 200: One },
        detail: secured({ tags, summary: "Release a draft (it becomes live); releasing a released version changes nothing" }),
      },
    );
}
