/**
 * The marketplace: publish (owner), browse and read listings, and run
 * published endpoints (any authenticated account).
 */
import { Elysia, t } from "elysia";
import { baseUrlOf } from "../http/base-url.ts";
import { notFound } from "../errors.ts";
import { authenticated, type AuthDeps } from "../http/auth.ts";
import { secured } from "../http/openapi.ts";
import { requestMeta } from "../http/request-context.ts";
import { ApiIdParams, IntegrationView } from "../endpoints/model.ts";
import { shownInputs } from "../endpoints/record.ts";
import { buildIntegration } from "../endpoints/integration.ts";
import type { OutputFormat } from "../endpoints/rules.ts";
import { RunBody, RunResponse, runCall, runnable, VERSION_SEGMENT } from "../endpoints/service-routes.ts";
import type { EndpointsContext } from "../endpoints/service.ts";
import type { SearchFaceDeps } from "../search/run.ts";
import * as q from "./queries.ts";
import { publishVersion } from "./service.ts";

const tags = ["Marketplace"];

function publishedUrls(base: string, publicStub: string, version: number) {
  const unversioned = `${base}/v1/published-service/${publicStub}`;
  return { unversioned, versioned: `${unversioned}/v${version}` };
}

function snapshotIntegration(base: string, publicStub: string, snapshot: q.SnapshotRow, latest: number) {
  const urls = publishedUrls(base, publicStub, snapshot.version);
  return buildIntegration({
    apiName: snapshot.apiName,
    inputs: shownInputs(snapshot.inputs),
    outputFormat: snapshot.outputFormat as OutputFormat,
    url: snapshot.version === latest ? urls.unversioned : urls.versioned,
    versionedUrl: urls.versioned,
  });
}

function listingView(listing: q.PublishedRow & { publisherName: string }, versions: q.SnapshotRow[]) {
  return {
    public_stub: listing.publicStub,
    title: listing.title,
    description: listing.description,
    category: listing.category,
    tags: listing.tags,
    publisher: listing.publisherName,
    latest_version: Math.max(0, ...versions.map((v) => v.version)),
    versions: versions.map((v) => ({ version: v.version, source_version: v.sourceVersion, published_at: v.createdAt.toISOString(), version_notes: v.versionNotes })),
    created_at: listing.createdAt.toISOString(),
    updated_at: listing.updatedAt.toISOString(),
  };
}

const ListingVersion = t.Object({ version: t.Integer(), source_version: t.Integer(), published_at: t.String(), version_notes: t.Nullable(t.String()) });
const Listing = t.Object({
  public_stub: t.String(),
  title: t.String(),
  description: t.String(),
  category: t.Nullable(t.String()),
  tags: t.Array(t.String()),
  publisher: t.String(),
  latest_version: t.Integer(),
  versions: t.Array(ListingVersion),
  created_at: t.String(),
  updated_at: t.String(),
});
const ListingDetail = t.Composite([
  Listing,
  t.Object({ shown_version: t.Integer(), api_name: t.String(), inputs: t.Array(t.Unknown()), output_format: t.Unknown(), integration: IntegrationView, example_request: t.Unknown() }),
]);

export function marketplaceRoutes(auth: AuthDeps, ctx: EndpointsContext, face: SearchFaceDeps, publicBaseUrl: string | undefined) {
  const published = async (publicStub: string) => {
    const listing = await q.publishedByStub(ctx.db, publicStub);
    if (!listing) throw notFound("published endpoint");
    return { listing, versions: await q.snapshots(ctx.db, listing.id) };
  };
  return new Elysia({ prefix: "/v1" })
    .use(authenticated(auth))
    .post(
      "/design-api/:api_id/publish",
      async ({ caller, params, body, request }) => {
        const result = await publishVersion(ctx, caller.accountId, params.api_id, body ?? {});
        const { listing, versions } = await published(result.publicStub);
        const snapshot = versions.find((v) => v.version === result.publishedVersion)!;
        return {
          ...listingView(listing, versions),
          published_version: result.publishedVersion,
          integration: snapshotIntegration(baseUrlOf(request, publicBaseUrl), result.publicStub, snapshot, result.publishedVersion),
        };
      },
      {
        params: ApiIdParams,
        body: t.Optional(
          t.Nullable(
            t.Object({
              public_stub: t.Optional(t.Nullable(t.String({ maxLength: 64 }))),
              title: t.Optional(t.Nullable(t.String({ maxLength: 200 }))),
              description: t.Optional(t.Nullable(t.String({ maxLength: 2_000 }))),
              category: t.Optional(t.Nullable(t.String({ maxLength: 60 }))),
              tags: t.Optional(t.Nullable(t.Array(t.String({ maxLength: 40 }), { maxItems: 20 }))),
            }),
          ),
        ),
        response: { 200: t.Composite([Listing, t.Object({ published_version: t.Integer(), integration: IntegrationView })]) },
        detail: secured({
          tags,
          summary: "Publish a version to the marketplace",
          description:
            "Releases the version if it is a draft (as /release does) and adds an immutable snapshot under the endpoint's globally unique public stub (chosen on first publish: public_stub, else the endpoint's stub). Publishing again adds the next published version.",
        }),
      },
    )
    .get(
      "/marketplace",
      async ({ query }) => {
        const perPage = Math.min(Math.max(Number(query.per_page ?? 20), 1), 100);
        const page = Math.max(Number(query.page ?? 1), 1);
        const { rows, total } = await q.listListings(ctx.db, { text: query.q?.trim() || undefined, category: query.category || undefined, tag: query.tag || undefined, limit: perPage, offset: (page - 1) * perPage });
        const items = await Promise.all(rows.map(async (row) => listingView(row, await q.snapshots(ctx.db, row.id))));
        return { items, total, page, per_page: perPage };
      },
      {
        query: t.Object({
          q: t.Optional(t.String({ maxLength: 200 })),
          category: t.Optional(t.String({ maxLength: 60 })),
          tag: t.Optional(t.String({ maxLength: 40 })),
          page: t.Optional(t.Numeric({ minimum: 1, maximum: 10_000 })),
          per_page: t.Optional(t.Numeric({ minimum: 1, maximum: 100 })),
        }),
        response: { 200: t.Object({ items: t.Array(Listing), total: t.Integer(), page: t.Integer(), per_page: t.Integer() }) },
        detail: secured({ tags, summary: "Browse published endpoints: search by text, category or tag, paginated" }),
      },
    )
    .get(
      "/marketplace/:public_stub",
      async ({ params, query, request }) => {
        const { listing, versions } = await published(params.public_stub);
        const newest = versions.at(-1)!;
        const shown = query.version === undefined ? newest : versions.find((v) => v.version === query.version);
        if (!shown) throw notFound("published version");
        const integration = snapshotIntegration(baseUrlOf(request, publicBaseUrl), listing.publicStub, shown, newest.version);
        return { ...listingView(listing, versions), shown_version: shown.version, api_name: shown.apiName, inputs: shownInputs(shown.inputs), output_format: shown.outputFormat, integration, example_request: integration.example_request };
      },
      {
        params: t.Object({ public_stub: t.String({ maxLength: 64 }) }),
        query: t.Object({ version: t.Optional(t.Numeric({ minimum: 1, maximum: 1_000_000, description: "A published version (default: the newest)." })) }),
        response: { 200: ListingDetail },
        detail: secured({ tags, summary: "One published endpoint: description, versions, schemas and an example (of the newest version, or ?version=n)" }),
      },
    )
    .post(
      "/published-service/:api_stub",
      async ({ params, body, request }) => {
        const { listing, versions } = await published(params.api_stub);
        requestMeta(request).publisher = { accountId: listing.ownerAccountId, publishedId: listing.id };
        return runCall(face, runnable(versions.at(-1)!), body, request);
      },
      { params: t.Object({ api_stub: t.String({ maxLength: 64 }) }), body: RunBody, response: { 200: RunResponse }, detail: secured({ tags, summary: "Run the newest published version" }) },
    )
    .post(
      "/published-service/:api_stub/:version",
      async ({ params, body, request }) => {
        const { listing, versions } = await published(params.api_stub);
        const wanted = Number(VERSION_SEGMENT.exec(params.version)?.[1] ?? Number.NaN);
        const snapshot = versions.find((v) => v.version === wanted);
        if (!snapshot) throw notFound("published version");
        requestMeta(request).publisher = { accountId: listing.ownerAccountId, publishedId: listing.id };
        return runCall(face, runnable(snapshot), body, request);
      },
      {
        params: t.Object({ api_stub: t.String({ maxLength: 64 }), version: t.String({ maxLength: 10 }) }),
        body: RunBody,
        response: { 200: RunResponse },
        detail: secured({ tags, summary: "Run published version n exactly" }),
      },
    );
}
