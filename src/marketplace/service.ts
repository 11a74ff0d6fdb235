/**
 * Publishing: an owner's version goes to the marketplace as an immutable
 * snapshot under a globally unique public stub. A draft is released first,
 * exactly as /release does; publishing again adds the next published
 * version under the same stub, when it says something the newest does not
 * (an unchanged one is refused: 409). Snapshots never change: whatever the owner
 * edits, releases or deletes afterwards, consumers keep their contract.
 */
import { isUniqueViolation, type Database } from "../../db/client.ts";
import { conflict, invalid, notFound } from "../errors.ts";
import { couldBeStub, newId } from "../ids.ts";
import * as endpointQueries from "../endpoints/queries.ts";
import { stateOf } from "../endpoints/lifecycle.ts";
import type { EndpointsContext } from "../endpoints/service.ts";
import * as q from "./queries.ts";

export interface PublishInput {
  public_stub?: string | null;
  title?: string | null;
  description?: string | null;
  category?: string | null;
  tags?: string[] | null;
}

function cleanTags(tags: string[]): string[] {
  return [...new Set(tags.map((t) => t.trim().toLowerCase()).filter(Boolean))].slice(0, 20);
}

/** Two owners racing for one public stub: the unique index decides, and the loser hears 409. */
async function insertOrTaken(tx: Database, publicStub: string, row: Parameters<typeof q.insertPublished>[1]): Promise<q.PublishedRow> {
  try {
    return await q.insertPublished(tx, row);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`the public stub "${publicStub}" is taken`);
    throw error;
  }
}

/**
 * Whether a version says what a listing's snapshot already says: its name, prompt, inputs, output format and graph
 * (notes aside). Published again it would be a second version that callers could not tell from the first. Compared as
 * JSON text: the columns are json, which keeps an owner's key order, and a reordering is a change to the design.
 */
function sameContract(
  snapshot: q.SnapshotRow,
  version: Pick<q.SnapshotRow, "apiName" | "originalPrompt" | "inputs" | "outputFormat" | "graph">,
): boolean {
  const contract = (v: typeof version) => JSON.stringify([v.apiName, v.originalPrompt, v.inputs, v.outputFormat, v.graph]);
  return contract(snapshot) === contract(version);
}

export async function publishVersion(
  ctx: EndpointsContext,
  accountId: string,
  apiId: number,
  input: PublishInput,
): Promise<{ publicStub: string; publishedVersion: number }> {
  if (
    input.public_stub !== undefined &&
    input.public_stub !== null &&
    (!couldBeStub(input.public_stub) || /^v\d+$/.test(input.public_stub))
  ) {
    throw invalid(
      ["body", "public_stub"],
      "a public stub is 1 to 64 lowercase letters, digits and inner hyphens, and not of the form v<digits>",
      "string_pattern_mismatch",
    );
  }
  const published = await ctx.db.transaction(async (transaction) => {
    const tx = transaction as unknown as Database;
    const peek = await endpointQueries.getVersion(tx, accountId, apiId);
    if (!peek || !(await endpointQueries.lockLineage(tx, accountId, peek.endpointId))) throw notFound("endpoint");
    const version = (await endpointQueries.getVersion(tx, accountId, apiId))!;
    const now = new Date(ctx.clock.now());
    if (stateOf(version) === "draft") await endpointQueries.freezeVersion(tx, accountId, apiId, now);

    let listing = await q.publishedBySource(tx, accountId, version.endpointId);
    if (listing && input.public_stub && input.public_stub !== listing.publicStub) {
      throw conflict(`this endpoint is published as "${listing.publicStub}"; its public stub cannot change`);
    }
    if (!listing) {
      const publicStub = input.public_stub ?? version.stub;
      if (await q.publishedByStub(tx, publicStub)) throw conflict(`the public stub "${publicStub}" is taken`);
      listing = await insertOrTaken(tx, publicStub, {
        id: newId("pub"),
        publicStub,
        ownerAccountId: accountId,
        sourceEndpointId: version.endpointId,
        title: input.title?.trim() || version.apiName,
        description: input.description?.trim() || version.originalPrompt.slice(0, 2_000),
        category: input.category?.trim() || null,
        tags: cleanTags(input.tags ?? []),
      });
    } else {
      // The listing's words may change; its snapshots never do.
      await q.updateListing(
        tx,
        accountId,
        listing.id,
        {
          ...(input.title ? { title: input.title.trim() } : {}),
          ...(input.description ? { description: input.description.trim() } : {}),
          ...(input.category !== undefined ? { category: input.category?.trim() || null } : {}),
          ...(input.tags ? { tags: cleanTags(input.tags) } : {}),
        },
        now,
      );
    }
    const existing = await q.snapshots(tx, listing.id);
    const newest = existing.at(-1);
    if (newest && sameContract(newest, version)) {
      throw conflict(
        `this version is already published, unchanged, as version ${newest.version} of "${listing.publicStub}"; ` +
          "change the endpoint (a new version of it, edited) and publish that to add a version",
      );
    }
    const snapshot = await q.insertSnapshot(tx, {
      id: newId("pubv"),
      publishedId: listing.id,
      version: existing.length ? Math.max(...existing.map((s) => s.version)) + 1 : 1,
      sourceVersion: version.version,
      apiName: version.apiName,
      originalPrompt: version.originalPrompt,
      inputs: version.inputs,
      outputFormat: version.outputFormat,
      graph: version.graph,
      versionNotes: version.versionNotes,
    });
    return { publicStub: listing.publicStub, publishedVersion: snapshot.version };
  });
  // Publishing releases a draft: the owner's live version, and so its tools, may have changed.
  ctx.changes.emit({ accountId, kind: "published" });
  return published;
}
