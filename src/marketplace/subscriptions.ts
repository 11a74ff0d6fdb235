/**
 * The published endpoints an account uses from its agents: subscribing puts
 * one among the account's MCP tools, unsubscribing takes it away. Nothing
 * else changes: anyone may call any listing by its public stub either way.
 */
import { and, asc, eq } from "drizzle-orm";
import { accounts, marketplaceSubscriptions, publishedEndpoints, type AccountStatus } from "../../db/schema.ts";
import type { EndpointsContext } from "../endpoints/service.ts";
import { findListing } from "./listings.ts";
import * as q from "./queries.ts";

export interface Subscription {
  public_stub: string;
  subscribed: boolean;
}

export async function subscribe(ctx: EndpointsContext, accountId: string, publicStub: string): Promise<Subscription> {
  const listing = await findListing(ctx, publicStub);
  await ctx.db
    .insert(marketplaceSubscriptions)
    .values({ accountId, publishedId: listing.id, createdAt: new Date(ctx.clock.now()) })
    .onConflictDoNothing();
  ctx.changes.emit({ accountId, kind: "subscribed" });
  return { public_stub: listing.publicStub, subscribed: true };
}

/** Whether the account uses the listing from its agents. */
export async function subscription(ctx: EndpointsContext, accountId: string, publicStub: string): Promise<Subscription> {
  const listing = await findListing(ctx, publicStub);
  const rows = await ctx.db
    .select({ accountId: marketplaceSubscriptions.accountId })
    .from(marketplaceSubscriptions)
    .where(and(eq(marketplaceSubscriptions.accountId, accountId), eq(marketplaceSubscriptions.publishedId, listing.id)))
    .limit(1);
  return { public_stub: listing.publicStub, subscribed: rows.length > 0 };
}

export async function unsubscribe(ctx: EndpointsContext, accountId: string, publicStub: string): Promise<Subscription> {
  const listing = await findListing(ctx, publicStub);
  await ctx.db
    .delete(marketplaceSubscriptions)
    .where(and(eq(marketplaceSubscriptions.accountId, accountId), eq(marketplaceSubscriptions.publishedId, listing.id)));
  ctx.changes.emit({ accountId, kind: "unsubscribed" });
  return { public_stub: listing.publicStub, subscribed: false };
}

export interface Subscribed {
  publicStub: string;
  title: string;
  description: string;
  publisherStatus: AccountStatus;
  /** The newest published version: what an unversioned call runs. */
  newest: q.SnapshotRow;
}

/** The account's subscriptions, oldest first, each with the version an unversioned call runs. */
export async function subscribedEndpoints(ctx: EndpointsContext, accountId: string): Promise<Subscribed[]> {
  const rows = await ctx.db
    .select({ published: publishedEndpoints, publisherStatus: accounts.status })
    .from(marketplaceSubscriptions)
    .innerJoin(publishedEndpoints, eq(publishedEndpoints.id, marketplaceSubscriptions.publishedId))
    .innerJoin(accounts, eq(accounts.id, publishedEndpoints.ownerAccountId))
    .where(eq(marketplaceSubscriptions.accountId, accountId))
    .orderBy(asc(marketplaceSubscriptions.createdAt));
  // Every listing's versions in one query, not one per subscription.
  const versions = await q.snapshotsOfMany(
    ctx.db,
    rows.map((r) => r.published.id),
  );
  const out: Subscribed[] = [];
  for (const row of rows) {
    const newest = versions.get(row.published.id)?.at(-1);
    if (!newest) continue;
    out.push({
      publicStub: row.published.publicStub,
      title: row.published.title,
      description: row.published.description,
      publisherStatus: row.publisherStatus,
      newest,
    });
  }
  return out;
}
