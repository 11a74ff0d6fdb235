/**
 * The verbs of designed endpoints (no HTTP here). Every change to a lineage
 * runs in one transaction holding the lineage's row lock, so concurrent
 * calls see each other's results; the database's partial unique index on
 * drafts is the last line.
 */
import { isUniqueViolation, type Database } from "../../db/client.ts";
import type { Clock } from "../clock.ts";
import { conflict, notFound } from "../errors.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../log.ts";
import type { LlmPort } from "../research/llm/port.ts";
import type { EndpointChanges } from "./changes.ts";
import { designEndpoint } from "./design/designer.ts";
import { DRAFT_EXISTS, stateOf } from "./lifecycle.ts";
import type { EndpointInput, Graph, GraphInput } from "./model.ts";
import * as q from "./queries.ts";
import { checkOutputFormat } from "../research/output-format.ts";
import { isGiven } from "../research/request.ts";
import { checkContent, MAX_RESULTS, namedGraph, type EndpointContent } from "./rules.ts";

export interface EndpointsContext {
  db: Database;
  clock: Clock;
  llm: LlmPort | null;
  log: Logger;
  /** Told of every committed change to an account's endpoints or subscriptions. */
  changes: EndpointChanges;
}

export interface CreateInput {
  original_prompt: string;
  api_name?: string | null;
  inputs?: EndpointInput[] | null;
  output_format?: unknown;
  graph?: GraphInput | null;
}

export type PatchInput = Partial<{
  original_prompt: string;
  api_name: string;
  inputs: EndpointInput[];
  output_format: unknown;
  graph: GraphInput;
  version_notes: string | null;
}>;

const STUB_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** A readable slug and a short random suffix: one path segment, never `v<digits>`. */
export function makeStub(apiName: string): string {
  const slug =
    apiName
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40)
      .replace(/-+$/, "") || "endpoint";
  const suffix = Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => STUB_ALPHABET[b & 31]).join("");
  return `${slug}-${suffix}`;
}

/**
 * A designed graph follows the content when the owner did not give one:
 * the nodes without outgoing edges produce the endpoint's output format,
 * and placeholders of inputs that no longer exist become plain words.
 */
function adaptGraph(graph: Graph, outputFormat: unknown, inputs: EndpointInput[]): Graph {
  const names = new Set([...inputs.map((i) => i.name), MAX_RESULTS]);
  const sources = new Set(graph.edges.map((e) => e.source));
  return {
    edges: graph.edges,
    nodes: graph.nodes.map((node) => ({
      ...node,
      system_prompt: node.system_prompt.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) =>
        names.has(name) ? whole : name.replace(/_/g, " "),
      ),
      ...(sources.has(node.id) ? {} : { output_format: outputFormat as Record<string, unknown> }),
    })),
  };
}

async function withLineage<T>(
  ctx: EndpointsContext,
  accountId: string,
  apiId: number,
  work: (tx: Database, version: q.VersionWithStub) => Promise<T>,
): Promise<T> {
  return ctx.db.transaction(async (transaction) => {
    const tx = transaction as unknown as Database;
    const peek = await q.getVersion(tx, accountId, apiId);
    if (!peek || !(await q.lockLineage(tx, accountId, peek.endpointId))) throw notFound("endpoint");
    // Re-read under the lock: another call may have released or added versions meanwhile.
    const version = await q.getVersion(tx, accountId, apiId);
    if (!version) throw notFound("endpoint");
    return work(tx, version);
  });
}

/** `log` is the call's (it carries the request id). */
export async function createEndpoint(
  ctx: EndpointsContext,
  accountId: string,
  input: CreateInput,
  signal: AbortSignal,
  log: Logger = ctx.log,
): Promise<{ id: number }> {
  const { design } = await designEndpoint(ctx.llm, input.original_prompt, signal, log);
  const inputs = input.inputs ?? design.inputs;
  // `{}` is "not given", as in a search body: the designer's proposal stands.
  const outputFormat = isGiven(input.output_format) ? input.output_format : design.output_format;
  const content = checkContent(
    {
      original_prompt: input.original_prompt,
      api_name: input.api_name ?? design.api_name,
      inputs,
      output_format: outputFormat as Record<string, unknown>,
      graph: input.graph ? namedGraph(input.graph) : adaptGraph(design.graph, outputFormat, inputs),
      version_notes: null,
    },
    { allowMaxResults: !input.inputs },
  );
  for (let attempt = 0; ; attempt++) {
    try {
      const created = await ctx.db.transaction(async (transaction) => {
        const tx = transaction as unknown as Database;
        const endpointId = newId("ep");
        await q.insertLineage(tx, { id: endpointId, accountId, stub: makeStub(content.api_name) });
        return q.insertVersion(tx, { endpointId, accountId, version: 1, ...stored(content) });
      });
      ctx.changes.emit({ accountId, kind: "designed" });
      return { id: created.id };
    } catch (error) {
      // A stub collision (6 random characters) is retried with a new suffix.
      if (!isUniqueViolation(error) || attempt >= 3) throw error;
    }
  }
}

function stored(content: EndpointContent) {
  return {
    originalPrompt: content.original_prompt,
    apiName: content.api_name,
    inputs: content.inputs,
    outputFormat: content.output_format,
    graph: content.graph as unknown as Record<string, unknown>,
    versionNotes: content.version_notes,
  };
}

function contentOf(version: q.VersionRow): EndpointContent {
  return {
    original_prompt: version.originalPrompt,
    api_name: version.apiName,
    inputs: version.inputs as EndpointInput[],
    output_format: version.outputFormat,
    graph: version.graph as unknown as Graph,
    version_notes: version.versionNotes,
  };
}

export async function patchVersion(ctx: EndpointsContext, accountId: string, apiId: number, patch: PatchInput): Promise<void> {
  await withLineage(ctx, accountId, apiId, async (tx, version) => {
    if (stateOf(version) === "released")
      throw conflict(`version ${version.version} is released and cannot change; POST /v1/design-api/${apiId}/versions makes a new draft`);
    const current = contentOf(version);
    const inputs = patch.inputs ?? current.inputs;
    // `{}` is "not given", as in a search body and on create.
    const newFormat = isGiven(patch.output_format);
    const outputFormat = (newFormat ? patch.output_format : current.output_format) as Record<string, unknown>;
    const reshaped = patch.inputs !== undefined || newFormat;
    const content = checkContent(
      {
        original_prompt: patch.original_prompt ?? current.original_prompt,
        api_name: patch.api_name ?? current.api_name,
        inputs,
        output_format: outputFormat,
        // A new output format reaches the graph only when it is valid: its problems are reported once, at output_format.
        graph: patch.graph
          ? namedGraph(patch.graph)
          : reshaped && checkOutputFormat(outputFormat, []).length === 0
            ? adaptGraph(current.graph, outputFormat, inputs)
            : current.graph,
        version_notes: patch.version_notes !== undefined ? patch.version_notes : current.version_notes,
      },
      { allowMaxResults: patch.inputs === undefined },
    );
    await q.updateDraft(tx, accountId, apiId, stored(content), new Date(ctx.clock.now()));
  });
  ctx.changes.emit({ accountId, kind: "edited" });
}

/** POST /versions: from the draft, release it and start the next; from a released version, the revert path. */
export async function newVersion(ctx: EndpointsContext, accountId: string, apiId: number, notes: string | null): Promise<{ id: number }> {
  const created = await withLineage(ctx, accountId, apiId, async (tx, version) => {
    const now = new Date(ctx.clock.now());
    const lineage = await q.lineageVersions(tx, accountId, version.endpointId);
    if (stateOf(version) === "draft") await q.freezeVersion(tx, accountId, apiId, now);
    else if (lineage.some((v) => stateOf(v) === "draft")) throw conflict(DRAFT_EXISTS);
    const next = Math.max(...lineage.map((v) => v.version)) + 1;
    const copy = { ...stored(contentOf(version)), versionNotes: notes };
    const created = await q.insertVersion(tx, { endpointId: version.endpointId, accountId, version: next, ...copy });
    return { id: created.id };
  });
  // Making a version from the draft released it: the live version, and so the account's tools, may have changed.
  ctx.changes.emit({ accountId, kind: "versioned" });
  return created;
}

export async function releaseVersion(ctx: EndpointsContext, accountId: string, apiId: number): Promise<void> {
  await withLineage(ctx, accountId, apiId, async (tx, version) => {
    if (stateOf(version) === "draft") await q.freezeVersion(tx, accountId, apiId, new Date(ctx.clock.now()));
  });
  ctx.changes.emit({ accountId, kind: "released" });
}

export async function deleteEndpoint(ctx: EndpointsContext, accountId: string, apiId: number): Promise<{ versions: number }> {
  const deleted = await withLineage(ctx, accountId, apiId, async (tx, version) => {
    const lineage = await q.lineageVersions(tx, accountId, version.endpointId);
    await q.deleteLineage(tx, accountId, version.endpointId);
    return { versions: lineage.length };
  });
  ctx.changes.emit({ accountId, kind: "deleted" });
  return deleted;
}
