/** A version as the API shows it: the spec's record fields, the lineage's versions, and the integration object. */
import type { EndpointInput, Graph } from "./model.ts";
import { buildIntegration } from "./integration.ts";
import { liveVersion, stateOf } from "./lifecycle.ts";
import type { VersionRow, VersionWithStub } from "./queries.ts";
import { isRequired, type OutputFormat } from "./rules.ts";

export function serviceUrls(base: string, stub: string, version: number) {
  const unversioned = `${base}/v1/user-defined-service/${stub}`;
  return { unversioned, versioned: `${unversioned}/v${version}` };
}

/** Inputs as shown: `required` made explicit (inputs stored before the key existed count as required). */
export function shownInputs(inputs: unknown[]): EndpointInput[] {
  return (inputs as EndpointInput[]).map((input) => ({ ...input, required: isRequired(input), default: input.default ?? null }));
}

export function endpointRecord(version: VersionWithStub, lineage: VersionRow[], base: string) {
  const live = liveVersion(lineage);
  const latest = Math.max(...lineage.map((v) => v.version));
  const urls = serviceUrls(base, version.stub, version.version);
  const inputs = shownInputs(version.inputs);
  const outputFormat = version.outputFormat as OutputFormat;
  return {
    id: version.id,
    original_prompt: version.originalPrompt,
    api_name: version.apiName,
    stub: version.stub,
    inputs,
    output_format: outputFormat,
    version: version.version,
    state: stateOf(version),
    frozen_at: version.frozenAt?.toISOString() ?? null,
    is_latest: version.version === latest,
    is_live: version.version === live,
    live_version: live,
    versions: lineage.map((v) => ({
      id: v.id,
      version: v.version,
      state: stateOf(v),
      frozen_at: v.frozenAt?.toISOString() ?? null,
      is_latest: v.version === latest,
      is_live: v.version === live,
      version_notes: v.versionNotes,
    })),
    integration: buildIntegration({
      apiName: version.apiName,
      inputs,
      outputFormat,
      url: version.version === live ? urls.unversioned : urls.versioned,
      versionedUrl: urls.versioned,
    }),
    graph: version.graph as unknown as Graph,
    version_notes: version.versionNotes,
    created_at: version.createdAt.toISOString(),
    updated_at: version.updatedAt.toISOString(),
  };
}

export type EndpointRecord = ReturnType<typeof endpointRecord>;
