/**
 * Reading an owner's endpoints as the API shows them. Each lookup finds the
 * owner's row or throws not-found: another account's id is a 404 by
 * construction. `base` is the service's public URL, for the integration
 * object's addresses.
 */
import { notFound } from "../errors.ts";
import { liveVersion } from "./lifecycle.ts";
import { VERSION_SEGMENT } from "./model.ts";
import * as q from "./queries.ts";
import { endpointRecord, type EndpointRecord } from "./record.ts";
import type { EndpointsContext } from "./service.ts";

/** The owner's version with its stub, or 404. */
export async function ownedVersion(ctx: EndpointsContext, accountId: string, apiId: number): Promise<q.VersionWithStub> {
  const version = await q.getVersion(ctx.db, accountId, apiId);
  if (!version) throw notFound("endpoint");
  return version;
}

export async function getEndpoint(ctx: EndpointsContext, accountId: string, apiId: number, base: string): Promise<EndpointRecord> {
  const version = await ownedVersion(ctx, accountId, apiId);
  return endpointRecord(version, await q.lineageVersions(ctx.db, accountId, version.endpointId), base);
}

/** Every version of the lineage that `apiId` belongs to, in order. */
export async function lineageRecords(ctx: EndpointsContext, accountId: string, apiId: number, base: string): Promise<EndpointRecord[]> {
  const version = await ownedVersion(ctx, accountId, apiId);
  const lineage = await q.lineageVersions(ctx.db, accountId, version.endpointId);
  return lineage.map((v) => endpointRecord({ ...v, stub: version.stub }, lineage, base));
}

/** The owner's endpoints, newest first: the highest version of each lineage, or every version. */
export async function listEndpoints(
  ctx: EndpointsContext,
  accountId: string,
  allVersions: boolean,
  base: string,
): Promise<EndpointRecord[]> {
  const lineages = new Map<string, q.VersionWithStub[]>();
  for (const row of await q.ownerVersions(ctx.db, accountId)) lineages.set(row.endpointId, [...(lineages.get(row.endpointId) ?? []), row]);
  return [...lineages.values()].flatMap((versions) =>
    (allVersions ? versions : [versions.at(-1)!]).map((v) => endpointRecord(v, versions, base)),
  );
}

/** The version a call of the owner's stub runs: the live one, or exactly `v{n}` (drafts included); else 404. */
export async function calledVersion(ctx: EndpointsContext, accountId: string, stub: string, segment: string | null): Promise<q.VersionRow> {
  const lineage = await q.lineageByStub(ctx.db, accountId, stub);
  if (!lineage) throw notFound("endpoint");
  const versions = await q.lineageVersions(ctx.db, accountId, lineage.id);
  const wanted = segment === null ? liveVersion(versions) : Number(VERSION_SEGMENT.exec(segment)?.[1] ?? Number.NaN);
  const version = versions.find((v) => v.version === wanted);
  if (!version) throw notFound("endpoint version");
  return version;
}
