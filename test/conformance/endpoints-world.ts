/**
 * Designed-endpoint calls for the conformance files of sections 2.6 to 4.1
 * and 9, over the app `useSearchApp()` starts: create, read, version,
 * release, publish and run, each asserting the status it expects, and the
 * integer-id and 404 shapes the service answers with.
 */
import { expect } from "bun:test";
import { jsonOf } from "../helpers/app.ts";
import { landmarkEndpoint } from "../helpers/endpoints.ts";
import type { SearchApp } from "./search-app.ts";

export type Rec = Record<string, any>;

export const NOT_FOUND = { detail: "endpoint not found", error: "not_found" };
export const VERSION_NOT_FOUND = { detail: "endpoint version not found", error: "not_found" };
export const INT_PARSING = {
  detail: [{ loc: ["path", "api_id"], msg: "Input should be a valid integer, unable to parse string as an integer", type: "int_parsing" }],
};

/** The record's members: the spec's (2.6) plus the service's own (graph, state, version_notes, timestamps). */
export const RECORD_FIELDS = [
  "api_name",
  "created_at",
  "frozen_at",
  "graph",
  "id",
  "inputs",
  "integration",
  "is_latest",
  "is_live",
  "live_version",
  "original_prompt",
  "output_format",
  "state",
  "stub",
  "updated_at",
  "version",
  "version_notes",
  "versions",
];

/** The landmark endpoint with a different output, so a run's answer says which version ran. */
export const designerOnly = { output_format: { designer: "string" } };

export function endpointCalls(s: SearchApp) {
  /** The body of a response that must have `status` (200 unless told), loosely typed as jsonOf's: tests assert its shape. */
  const ok = async (response: Response | Promise<Response>, status = 200): Promise<any> => {
    const answered = await response;
    const body = await jsonOf(answered);
    expect({ status: answered.status, body }).toEqual({ status, body: expect.anything() });
    return body;
  };
  return {
    ok,
    /** POST /v1/design-api; the record inside `response`. */
    create: async (body: unknown = landmarkEndpoint, key?: string): Promise<Rec> =>
      (await ok(s.call("POST", "/v1/design-api", body, key))).response,
    get: (id: number, key?: string): Promise<Rec> => ok(s.call("GET", `/v1/design-api/${id}`, undefined, key)),
    lineage: (id: number): Promise<Rec[]> => ok(s.call("GET", `/v1/design-api/${id}/versions`)),
    patch: (id: number, body: unknown): Promise<Rec> => ok(s.call("PATCH", `/v1/design-api/${id}`, body)),
    newVersion: async (id: number, body?: unknown): Promise<Rec> =>
      (await ok(s.call("POST", `/v1/design-api/${id}/versions`, body))).response,
    release: async (id: number): Promise<Rec> => (await ok(s.call("POST", `/v1/design-api/${id}/release`))).response,
    publish: (id: number, body: unknown = {}): Promise<Rec> => ok(s.call("POST", `/v1/design-api/${id}/publish`, body)),
    run: (stub: string, body: unknown = { landmark: "Eiffel Tower" }, suffix = "", key?: string) =>
      s.call("POST", `/v1/user-defined-service/${stub}${suffix}`, body, key),
    runPublished: (publicStub: string, body: unknown = { landmark: "Eiffel Tower" }, suffix = "", key?: string) =>
      s.call("POST", `/v1/published-service/${publicStub}${suffix}`, body, key),
    /** The output fields a successful run answered with: which version ran. */
    ranFields: async (response: Response | Promise<Response>): Promise<string[]> => Object.keys((await ok(response)).response).sort(),
    /** Every query the search world's SearXNG peer received while `work` ran. */
    async queriesDuring(work: () => Promise<unknown>): Promise<string> {
      const mark = s.world.searxng.requests.length;
      await work();
      return s.world.searxng.requests
        .slice(mark)
        .map((r) => String(r.params.q ?? ""))
        .join("\n");
    },
  };
}

export const LANDMARK_FIELDS = ["completed_year", "designer", "height_metres"];
