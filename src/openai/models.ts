/**
 * The models of the OpenAI-compatible face: `search` (the research run of
 * POST /v1/search), each of the caller's designed endpoints as
 * `endpoint:<stub>` (its live version) and each published endpoint as
 * `published:<public_stub>` (its newest version). The list shows the
 * caller's own endpoints and their marketplace subscriptions, whose
 * publisher is active; any published endpoint can be called by its name, as
 * on POST /v1/published-service. Another account's endpoint is a 404, as
 * one that does not exist.
 */
import { ServiceError } from "../errors.ts";
import { liveVersion } from "../endpoints/lifecycle.ts";
import { ownerVersions, type VersionWithStub } from "../endpoints/queries.ts";
import { calledVersion } from "../endpoints/reads.ts";
import type { EndpointsContext } from "../endpoints/service.ts";
import { findCallable } from "../marketplace/listings.ts";
import { subscribedEndpoints } from "../marketplace/subscriptions.ts";

export type ModelRef = { kind: "search" } | { kind: "endpoint"; stub: string } | { kind: "published"; stub: string };

export interface Model {
  id: string;
  object: "model";
  created: number;
  owned_by: string;
}

/** When `search` was first served: a fixed date, as OpenAI gives its models'. */
const SEARCH: Model = { id: "search", object: "model", created: 1_767_225_600, owned_by: "agentic-search" };

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** The same words for a model that does not exist and another account's endpoint: neither says which it was. */
export function unknownModel(): ServiceError {
  return new ServiceError("not_found", "the model does not exist, or it is not one you may call; GET /v1/models lists yours", {
    body: { param: "model" },
  });
}

/** What a model id names, or a 404 for one that names nothing this face serves. */
export function modelRef(id: string): ModelRef {
  if (id === "search") return { kind: "search" };
  const named = /^(endpoint|published):([A-Za-z0-9][A-Za-z0-9_-]{0,99})$/.exec(id);
  if (!named) throw unknownModel();
  return { kind: named[1] as "endpoint" | "published", stub: named[2]! };
}

export async function callerModels(ctx: EndpointsContext, accountId: string): Promise<Model[]> {
  const lineages = new Map<string, VersionWithStub[]>();
  for (const row of await ownerVersions(ctx.db, accountId)) lineages.set(row.endpointId, [...(lineages.get(row.endpointId) ?? []), row]);
  const owned = [...lineages.values()].map((versions) => {
    const live = versions.find((v) => v.version === liveVersion(versions))!;
    return { id: `endpoint:${live.stub}`, object: "model" as const, created: seconds(live.createdAt), owned_by: accountId };
  });
  const subscribed = (await subscribedEndpoints(ctx, accountId))
    .filter((sub) => sub.publisherStatus === "active")
    .map((sub) => ({
      id: `published:${sub.publicStub}`,
      object: "model" as const,
      created: seconds(sub.newest.createdAt),
      owned_by: "marketplace",
    }));
  return [SEARCH, ...owned, ...subscribed];
}

/** One model, if the caller may call it: their own endpoint, or a published one whose publisher is active. */
export async function callerModel(ctx: EndpointsContext, accountId: string, id: string): Promise<Model> {
  const ref = modelRef(id);
  if (ref.kind === "search") return SEARCH;
  try {
    if (ref.kind === "endpoint") {
      const version = await calledVersion(ctx, accountId, ref.stub, null);
      return { id, object: "model", created: seconds(version.createdAt), owned_by: accountId };
    }
    const published = await findCallable(ctx, ref.stub);
    return { id, object: "model", created: seconds(published.versions.at(-1)!.createdAt), owned_by: "marketplace" };
  } catch (error) {
    if (error instanceof ServiceError && error.code === "not_found") throw unknownModel();
    throw error;
  }
}
