/**
 * SPEC 9, versioning: the /v1 prefix and the description's version 1.6.0,
 * integer endpoint versions pinned with /v{n} in both families, what the
 * unversioned paths run, pinning as a contract, drafts only at their pinned
 * URL, reverting, and the 404 for a pinned version that does not exist.
 */
import { expect } from "bun:test";
import { jsonOf } from "../helpers/app.ts";
import { landmarkEndpoint } from "../helpers/endpoints.ts";
import { clause } from "./clause.ts";
import { designerOnly, endpointCalls, LANDMARK_FIELDS, VERSION_NOT_FOUND, type Rec } from "./endpoints-world.ts";
import { useSearchApp } from "./search-app.ts";

const s = useSearchApp();
const e = endpointCalls(s);

/** Version 2 of the landmark endpoint: another input and another output, so a run shows which contract answered. */
const structureContract = {
  inputs: [{ name: "structure", type: "string" }],
  output_format: { designer: "string" },
  graph: { nodes: [{ id: "research", type: "search_agent", name: "Research", system_prompt: "Who designed {structure}?" }], edges: [] },
};

/** Paths that are not the versioned interface: health, the documents, the dashboard and its sign-in. */
const UNVERSIONED = /^\/(healthz|readyz|openapi\.json|docs|dashboard|auth)(\/|$)/;

clause(
  "9.1",
  "the interface is under /v1: every operation of the OpenAPI document but health, docs and the dashboard's is a /v1 path",
  async () => {
    const document = await jsonOf(s.app.fetch("/openapi.json"));
    const paths = Object.keys(document.paths);
    expect(paths.length).toBeGreaterThan(10);
    for (const path of paths) if (!UNVERSIONED.test(path)) expect(path).toStartWith("/v1/");
    for (const path of [
      "/v1/search",
      "/v1/contents",
      "/v1/design-api",
      "/v1/design-api/{api_id}",
      "/v1/agent-integration",
      "/v1/ws/search",
    ])
      expect(paths).toContain(path);
  },
);

clause("9.1", "other prefixes are not the interface: /v2/search and /search are 404", async () => {
  for (const path of ["/v2/search", "/search", "/v0/search"]) {
    const response = await s.app.fetch(path, {
      method: "POST",
      headers: { "X-API-Key": s.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ prompt: "x" }),
    });
    expect(`${path} ${response.status}`).toBe(`${path} 404`);
  }
});

clause("9.1", "the machine-readable description carries its own version number, 1.6.0", async () => {
  const document = await jsonOf(s.app.fetch("/openapi.json"));
  expect(document.info.version).toBe("1.6.0");
  expect(document.openapi).toMatch(/^3\.1\./);
  expect((await jsonOf(s.app.fetch("/v1/agent-integration"))).version).toBe("1.6.0");
});

clause("9.2", "each designed endpoint has integer versions 1, 2, 3...", async () => {
  const v1 = await e.create();
  const v2 = await e.newVersion(v1.id);
  await e.release(v2.id);
  await e.newVersion(v2.id);
  const versions = (await e.lineage(v1.id)).map((v) => v.version);
  expect(versions).toEqual([1, 2, 3]);
  for (const n of versions) expect(Number.isInteger(n)).toBe(true);
});

clause("9.2", "/v{n} appended to the endpoint path pins the version, in the user-defined and the published family", async () => {
  const v1 = await e.create();
  const published = await e.publish(v1.id, { public_stub: "versioning-pinned" });
  expect(Number.isInteger(published.published_version)).toBe(true);
  const v2 = await e.newVersion(v1.id);
  await e.patch(v2.id, designerOnly);
  await e.publish(v2.id);
  expect(await e.ranFields(e.run(v1.stub, undefined, "/v1"))).toEqual(LANDMARK_FIELDS);
  expect(await e.ranFields(e.run(v1.stub, undefined, "/v2"))).toEqual(["designer"]);
  expect(await e.ranFields(e.runPublished("versioning-pinned", undefined, "/v1"))).toEqual(LANDMARK_FIELDS);
  expect(await e.ranFields(e.runPublished("versioning-pinned", undefined, "/v2"))).toEqual(["designer"]);
  expect(v2.integration.versioned_url).toBe(`${s.app.url}/v1/user-defined-service/${v1.stub}/v2`);
});

clause("9.3", "the unversioned user-defined path runs the live version (the highest released), not a newer draft", async () => {
  const v1 = await e.create();
  const v2 = await e.newVersion(v1.id);
  await e.patch(v2.id, designerOnly);
  await e.release(v2.id);
  const v3 = await e.newVersion(v2.id);
  await e.patch(v3.id, { output_format: { height_metres: "number" } });
  expect((await e.get(v3.id)).live_version).toBe(2);
  expect(await e.ranFields(e.run(v1.stub))).toEqual(["designer"]);
});

clause("9.3", "the unversioned published path runs the newest published version", async () => {
  const v1 = await e.create();
  await e.publish(v1.id, { public_stub: "versioning-newest" });
  expect(await e.ranFields(e.runPublished("versioning-newest"))).toEqual(LANDMARK_FIELDS);
  const v2 = await e.newVersion(v1.id);
  await e.patch(v2.id, designerOnly);
  await e.release(v2.id);
  // Released but not published: the published path still runs published version 1.
  expect(await e.ranFields(e.runPublished("versioning-newest"))).toEqual(LANDMARK_FIELDS);
  await e.publish(v2.id);
  expect(await e.ranFields(e.runPublished("versioning-newest"))).toEqual(["designer"]);
});

clause(
  "9.4",
  "a pinned version keeps the inputs and output schema a caller tested against after the owner releases a newer version",
  async () => {
    const v1 = await e.create();
    await e.release(v1.id);
    const v2 = await e.newVersion(v1.id);
    await e.patch(v2.id, structureContract);
    await e.release(v2.id);
    const moved = await e.run(v1.stub, { landmark: "Eiffel Tower" });
    expect(moved.status).toBe(400);
    expect((await moved.json()).detail).toBe("missing required input: structure: string");
    const pinned = await e.ok(e.run(v1.stub, { landmark: "Eiffel Tower" }, "/v1"));
    expect(Object.keys(pinned.response).sort()).toEqual(LANDMARK_FIELDS);
    expect(pinned.response.completed_year).toBe(1889);
    expect((await e.get(v1.id)).inputs.map((i: Rec) => i.name)).toEqual(["landmark", "city", "language"]);
  },
);

clause("9.4", "a pinned published version keeps its contract after the owner publishes a newer one", async () => {
  const v1 = await e.create();
  await e.publish(v1.id, { public_stub: "versioning-contract" });
  const v2 = await e.newVersion(v1.id);
  await e.patch(v2.id, structureContract);
  await e.publish(v2.id);
  expect((await e.runPublished("versioning-contract", { landmark: "Eiffel Tower" })).status).toBe(400);
  expect(await e.ranFields(e.runPublished("versioning-contract", { landmark: "Eiffel Tower" }, "/v1"))).toEqual(LANDMARK_FIELDS);
  const detail = await e.ok(s.call("GET", "/v1/marketplace/versioning-contract?version=1"));
  expect(detail.inputs.map((i: Rec) => i.name)).toEqual(["landmark", "city", "language"]);
  expect(detail.output_format).toEqual(landmarkEndpoint.output_format);
});

clause("9.4", "released versions are immutable (PATCH is a 409) and so are published snapshots", async () => {
  const v1 = await e.create();
  await e.publish(v1.id, { public_stub: "versioning-immutable" });
  const before = await e.ok(s.call("GET", "/v1/marketplace/versioning-immutable"));
  const refused = await s.call("PATCH", `/v1/design-api/${v1.id}`, structureContract);
  expect(refused.status).toBe(409);
  expect((await e.get(v1.id)).output_format).toEqual(landmarkEndpoint.output_format);
  expect(await e.ok(s.call("GET", "/v1/marketplace/versioning-immutable"))).toEqual(before);
});

clause("9.5", "a draft not yet released runs only at its pinned URL: the unversioned URL keeps running the released version", async () => {
  const v1 = await e.create();
  const v2 = await e.newVersion(v1.id);
  const draft = await e.patch(v2.id, designerOnly);
  expect(draft.integration.url).toBe(`${s.app.url}/v1/user-defined-service/${v1.stub}/v2`);
  expect(await e.ranFields(e.run(v1.stub))).toEqual(LANDMARK_FIELDS);
  expect(await e.ranFields(e.run(v1.stub, undefined, "/v2"))).toEqual(["designer"]);
  await e.release(v2.id);
  expect(await e.ranFields(e.run(v1.stub))).toEqual(["designer"]);
});

clause("9.6", "reverting: a new version made from an older released one, once released, is what the unversioned URL runs", async () => {
  const v1 = await e.create();
  const v2 = await e.newVersion(v1.id);
  await e.patch(v2.id, structureContract);
  await e.release(v2.id);
  expect((await e.run(v1.stub, { landmark: "Eiffel Tower" })).status).toBe(400);
  const v3 = await e.newVersion(v1.id, { version_notes: "revert to v1" });
  for (const field of ["inputs", "output_format", "graph", "api_name"]) expect(v3[field]).toEqual((await e.get(v1.id))[field]);
  await e.release(v3.id);
  expect(await e.ranFields(e.run(v1.stub, { landmark: "Eiffel Tower" }))).toEqual(LANDMARK_FIELDS);
  expect((await e.lineage(v1.id)).map((v) => [v.version, v.is_live, v.version_notes])).toEqual([
    [1, false, null],
    [2, false, null],
    [3, true, "revert to v1"],
  ]);
});

clause("9.7", "a pinned version that does not exist is a 404, in both families", async () => {
  const v1 = await e.create();
  await e.publish(v1.id, { public_stub: "versioning-absent" });
  for (const suffix of ["/v2", "/v0", "/v1000000"]) {
    const designed = await e.run(v1.stub, undefined, suffix);
    expect(`${suffix} ${designed.status}`).toBe(`${suffix} 404`);
    expect(await designed.json()).toEqual(VERSION_NOT_FOUND);
    const published = await e.runPublished("versioning-absent", undefined, suffix);
    expect(`${suffix} ${published.status}`).toBe(`${suffix} 404`);
    expect(await published.json()).toEqual({ detail: "published version not found", error: "not_found" });
  }
});

clause("9.7", "a deleted endpoint's pinned versions are 404 too", async () => {
  const v1 = await e.create();
  await e.newVersion(v1.id);
  await s.call("DELETE", `/v1/design-api/${v1.id}`);
  for (const suffix of ["/v1", "/v2"]) expect((await e.run(v1.stub, undefined, suffix)).status).toBe(404);
});
