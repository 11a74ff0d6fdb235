/**
 * The marketplace: publish (owner), browse and read listings, and run
 * published endpoints (any authenticated account).
 */
import { Elysia, t } from "elysia";
import { subscribe, subscription, unsubscribe } from "./subscriptions.ts";
import { ApiIdParams, RunBody, RunResponse, VERSION_SEGMENT } from "../endpoints/model.ts";
import type { EndpointsContext } from "../endpoints/service.ts";
import { baseUrlOf } from "../http/base-url.ts";
import { authenticated, type AuthDeps } from "../http/auth.ts";
import { secured } from "../http/openapi.ts";
import type { RunDeps } from "../research/run/hold.ts";
import { browseListings, findCallable, listingDetail, publishedView, snapshotOf } from "./listings.ts";
import { runPublished } from "./run.ts";
import {
  BrowseQuery,
  ListingDetail,
  ListingPage,
  PublicStubParams,
  Published,
  PublishBody,
  ShownVersionQuery,
  SubscriptionView,
} from "./model.ts";
import { publishVersion } from "./service.ts";

const tags = ["Marketplace"];

/** What the service says of itself in listings: its public URL (else the request's) and its price per million tokens. */
export interface MarketplaceSite {
  publicBaseUrl: string | undefined;
  perMillionTokens: number;
}

export function marketplaceRoutes(auth: AuthDeps, ctx: EndpointsContext, face: RunDeps, site: MarketplaceSite) {
  const base = (request: Request) => baseUrlOf(request, site.publicBaseUrl);
  return new Elysia({ prefix: "/v1" })
    .use(authenticated(auth))
    .post(
      "/design-api/:api_id/publish",
      async ({ caller, params, body, request }) => {
        const result = await publishVersion(ctx, caller.accountId, params.api_id, body ?? {});
        return publishedView(ctx, result.publicStub, result.publishedVersion, base(request));
      },
      {
        params: ApiIdParams,
        body: PublishBody,
        response: { 200: Published },
        detail: secured({
          tags,
          summary: "Publish a version to the marketplace",
          description:
            "Releases the version if it is a draft (as /release does) and adds an immutable snapshot under the endpoint's globally unique public stub (chosen on first publish: public_stub, else the endpoint's stub). Publishing again adds the next published version.",
        }),
      },
    )
    .get("/marketplace", async ({ query }) => browseListings(ctx, query, site.perMillionTokens), {
      query: BrowseQuery,
      response: { 200: ListingPage },
      detail: secured({
        tags,
        summary: "Browse published endpoints: search by text, category or tag, paginated",
        description: "Each listing carries its pricing: the price per million tokens, and the average cost of its recent successful calls.",
      }),
    })
    .get(
      "/marketplace/:public_stub",
      async ({ params, query, request }) =>
        listingDetail(ctx, params.public_stub, query.version, { base: base(request), perMillionTokens: site.perMillionTokens }),
      {
        params: PublicStubParams,
        query: ShownVersionQuery,
        response: { 200: ListingDetail },
        detail: secured({
          tags,
          summary: "One published endpoint: description, versions, schemas and an example (of the newest version, or ?version=n)",
          description:
            "Its pricing is the listing's, whatever version is shown: the price per million tokens and the average cost of its recent successful calls.",
        }),
      },
    )
    .get("/marketplace/:public_stub/subscribe", async ({ caller, params }) => subscription(ctx, caller.accountId, params.public_stub), {
      params: PublicStubParams,
      response: { 200: SubscriptionView },
      detail: secured({ tags, summary: "Whether you use a published endpoint from your agents (one of your MCP tools)" }),
    })
    .post("/marketplace/:public_stub/subscribe", async ({ caller, params }) => subscribe(ctx, caller.accountId, params.public_stub), {
      params: PublicStubParams,
      response: { 200: SubscriptionView },
      detail: secured({
        tags,
        summary: "Use a published endpoint from your agents: it becomes one of your MCP tools",
        description:
          "Idempotent. Calling the endpoint by its public stub needs no subscription; the subscription only lists it among the tools of /mcp.",
      }),
    })
    .delete("/marketplace/:public_stub/subscribe", async ({ caller, params }) => unsubscribe(ctx, caller.accountId, params.public_stub), {
      params: PublicStubParams,
      response: { 200: SubscriptionView },
      detail: secured({ tags, summary: "Stop using a published endpoint from your agents (idempotent)" }),
    })
    .post(
      "/published-service/:api_stub",
      async ({ call, params, body, request }) => {
        const published = await findCallable(ctx, params.api_stub);
        return runPublished(face, call, published, published.versions.at(-1)!, body, request.signal);
      },
      {
        params: t.Object({ api_stub: t.String({ maxLength: 64 }) }),
        body: RunBody,
        response: { 200: RunResponse },
        detail: secured({ tags, summary: "Run the newest published version" }, { billable: true }),
      },
    )
    .post(
      "/published-service/:api_stub/:version",
      async ({ call, params, body, request }) => {
        const published = await findCallable(ctx, params.api_stub);
        const snapshot = snapshotOf(published, Number(VERSION_SEGMENT.exec(params.version)?.[1] ?? Number.NaN));
        return runPublished(face, call, published, snapshot, body, request.signal);
      },
      {
        params: t.Object({ api_stub: t.String({ maxLength: 64 }), version: t.String({ maxLength: 10 }) }),
        body: RunBody,
        response: { 200: RunResponse },
        detail: secured({ tags, summary: "Run published version n exactly" }, { billable: true }),
      },
    );
}
