/**
 * A call of a published endpoint: the snapshot run for the call, its
 * publisher on the call's usage record (it earns a share of a paying
 * caller's cost), and its work, for limit-evasion detection, the public stub
 * whatever version runs. The published-service routes and the
 * OpenAI-compatible face (model `published:<public_stub>`) call it.
 */
import type { Call } from "../http/call.ts";
import { runCall, runnable } from "../endpoints/runtime/call.ts";
import { runOf, type RunDeps } from "../research/run/hold.ts";
import type { PublishedEndpoint } from "./listings.ts";
import type { SnapshotRow } from "./queries.ts";

export async function runPublished(
  face: RunDeps,
  call: Call,
  published: PublishedEndpoint,
  snapshot: SnapshotRow,
  body: unknown,
  signal: AbortSignal,
) {
  call.ran({ publisher: { accountId: published.listing.ownerAccountId, publishedId: published.listing.id } });
  const work = { endpoint: `published:${published.listing.publicStub}` };
  const { answer, usage } = await runCall(face, runnable(snapshot), body, runOf(call, { signal, work }));
  await call.charge(usage);
  return answer;
}
