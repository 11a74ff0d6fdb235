/**
 * Reading the marketplace: listings as the API shows them, each with its
 * versions and the integration object of the version shown. Listings are
 * public to every authenticated account. `base` is the service's public URL.
 */
import { notFound, ServiceError } from "../errors.ts";
import { buildIntegration } from "../endpoints/integration.ts";
import { shownInputs } from "../endpoints/record.ts";
import type { OutputFormat } from "../endpoints/rules.ts";
import type { EndpointsContext } from "../endpoints/service.ts";
import * as q from "./queries.ts";

type ListingRow = q.PublishedRow & { publisherName: string };

export interface PublishedEndpoint {
  listing: q.ListingWithPublisher;
  /** Oldest first; never empty. */
  versions: q.SnapshotRow[];
}

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

function listingView(listing: ListingRow, versions: q.SnapshotRow[]) {
  return {
    public_stub: listing.publicStub,
    title: listing.title,
    description: listing.description,
    category: listing.category,
    tags: listing.tags,
    publisher: listing.publisherName,
    latest_version: Math.max(0, ...versions.map((v) => v.version)),
    versions: versions.map((v) => ({
      version: v.version,
      source_version: v.sourceVersion,
      published_at: v.createdAt.toISOString(),
      version_notes: v.versionNotes,
    })),
    created_at: listing.createdAt.toISOString(),
    updated_at: listing.updatedAt.toISOString(),
  };
}

/**
 * How a listing's calls are priced: the service's price per million tokens, and what its recent successful calls
 * used on average (a designed endpoint's cost depends on its inputs, so the average of real calls says more than
 * any estimate). Calls that failed cost nothing and are left out.
 */
function pricingView(perMillionTokens: number, recent: { calls: number; averageTokens: number } | undefined) {
  const averageTokens = recent && recent.calls > 0 ? Math.round(recent.averageTokens) : null;
  return {
    per_million_tokens: perMillionTokens,
    average_tokens: averageTokens,
    // Dollars per million tokens times tokens, to the micro-dollar the usage records keep.
    average_cost: averageTokens === null ? null : Math.round(averageTokens * perMillionTokens) / 1_000_000,
    sampled_calls: recent?.calls ?? 0,
  };
}

/** A listing by its public stub, without its versions, or 404. */
export async function findListing(ctx: EndpointsContext, publicStub: string): Promise<q.ListingWithPublisher> {
  const listing = await q.publishedByStub(ctx.db, publicStub);
  if (!listing) throw notFound("published endpoint");
  return listing;
}

/** A published endpoint by its public stub, or 404. */
export async function findPublished(ctx: EndpointsContext, publicStub: string): Promise<PublishedEndpoint> {
  const listing = await findListing(ctx, publicStub);
  return { listing, versions: await q.snapshots(ctx.db, listing.id) };
}

/**
 * A published endpoint to call: 403 publisher_suspended while its publisher
 * is suspended or banned. The listing and its snapshots stay as they are
 * (browsing and reading them is unchanged), so reinstating the publisher
 * resumes calls with the same contract. The reason is the publisher's
 * business, not the consumer's: it is not repeated here.
 */
export async function findCallable(ctx: EndpointsContext, publicStub: string): Promise<PublishedEndpoint> {
  const published = await findPublished(ctx, publicStub);
  if (published.listing.publisherStatus !== "active")
    throw new ServiceError("publisher_suspended", "the publisher of this endpoint is suspended");
  return published;
}

/** Published version `version` exactly, or 404. */
export function snapshotOf(published: PublishedEndpoint, version: number): q.SnapshotRow {
  const snapshot = published.versions.find((v) => v.version === version);
  if (!snapshot) throw notFound("published version");
  return snapshot;
}

/** The listing as the publish call answers it: with the version just published and its integration. */
export async function publishedView(ctx: EndpointsContext, publicStub: string, publishedVersion: number, base: string) {
  const { listing, versions } = await findPublished(ctx, publicStub);
  const snapshot = snapshotOf({ listing, versions }, publishedVersion);
  return {
    ...listingView(listing, versions),
    published_version: publishedVersion,
    integration: snapshotIntegration(base, publicStub, snapshot, publishedVersion),
  };
}

/** One listing with the newest version (or `version`) shown: its schemas, integration and example. */
export async function listingDetail(
  ctx: EndpointsContext,
  publicStub: string,
  version: number | undefined,
  site: { base: string; perMillionTokens: number },
) {
  const published = await findPublished(ctx, publicStub);
  const recent = await q.recentCallTokens(ctx.db, [published.listing]);
  const newest = published.versions.at(-1)!;
  const shown = version === undefined ? newest : snapshotOf(published, version);
  const integration = snapshotIntegration(site.base, published.listing.publicStub, shown, newest.version);
  return {
    ...listingView(published.listing, published.versions),
    pricing: pricingView(site.perMillionTokens, recent.get(published.listing.id)),
    shown_version: shown.version,
    api_name: shown.apiName,
    inputs: shownInputs(shown.inputs),
    output_format: shown.outputFormat,
    integration,
    example_request: integration.example_request,
  };
}

export interface BrowseInput {
  q?: string;
  category?: string;
  tag?: string;
  page?: number;
  per_page?: number;
}

/** A page of listings, newest change first: two queries for the page, one for all its versions and one for their prices. */
export async function browseListings(ctx: EndpointsContext, input: BrowseInput, perMillionTokens: number) {
  const perPage = Math.min(Math.max(Math.floor(input.per_page ?? 20), 1), 100);
  const page = Math.max(Math.floor(input.page ?? 1), 1);
  const { rows, total } = await q.listListings(ctx.db, {
    text: input.q?.trim() || undefined,
    category: input.category || undefined,
    tag: input.tag || undefined,
    limit: perPage,
    offset: (page - 1) * perPage,
  });
  const versions = await q.snapshotsOfMany(
    ctx.db,
    rows.map((r) => r.id),
  );
  const recent = await q.recentCallTokens(ctx.db, rows);
  return {
    items: rows.map((row) => ({
      ...listingView(row, versions.get(row.id) ?? []),
      pricing: pricingView(perMillionTokens, recent.get(row.id)),
    })),
    total,
    page,
    per_page: perPage,
  };
}
