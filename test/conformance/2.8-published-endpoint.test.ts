/**
 * SPEC 2.8, the published endpoint: an immutable snapshot addressed by a
 * public stub. Its record fields are not shown by the spec; the service's
 * are pinned here (the publish answer and GET /v1/marketplace/{public_stub}).
 */
import { beforeAll, expect } from "bun:test";
import { sql } from "drizzle-orm";
import { clause } from "./clause.ts";
import { designerOnly, endpointCalls, LANDMARK_FIELDS, type Rec } from "./endpoints-world.ts";
import { useSearchApp } from "./search-app.ts";

const s = useSearchApp();
const e = endpointCalls(s);
let source: Rec;
let published: Rec;
let consumerKey: string;

const LISTING = [
  "category",
  "created_at",
  "description",
  "latest_version",
  "public_stub",
  "publisher",
  "tags",
  "title",
  "updated_at",
  "versions",
];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

beforeAll(async () => {
  source = await e.create();
  published = await e.publish(source.id, {
    public_stub: "snapshot-landmarks",
    title: "Landmark facts",
    description: "Completion year, height and designer",
    category: "Travel",
    tags: ["Landmarks"],
  });
  consumerKey = (await s.app.account({ name: "consumer", limit: 100_000 })).apiKey;
});

clause(
  "2.8 · ¶1",
  "a published version is addressed by its public stub: any account runs it at /v1/published-service/{public_stub}",
  async () => {
    expect(published.public_stub).toBe("snapshot-landmarks");
    expect(await e.ranFields(e.runPublished("snapshot-landmarks", { landmark: "Eiffel Tower" }, "", consumerKey))).toEqual(LANDMARK_FIELDS);
    expect(await e.ranFields(e.runPublished("snapshot-landmarks", { landmark: "Eiffel Tower" }, "/v1", consumerKey))).toEqual(
      LANDMARK_FIELDS,
    );
  },
);

clause(
  "2.8 · ¶1",
  "record fields (not shown): the publish answer is the listing plus published_version and the snapshot's integration",
  async () => {
    expect(Object.keys(published).sort()).toEqual([...LISTING, "integration", "published_version"].sort());
    expect(published).toMatchObject({
      public_stub: "snapshot-landmarks",
      title: "Landmark facts",
      description: "Completion year, height and designer",
      category: "Travel",
      tags: ["landmarks"],
      publisher: "conformance",
      latest_version: 1,
      published_version: 1,
    });
    expect(Number.isInteger(published.published_version)).toBe(true);
    expect(published.versions).toEqual([{ version: 1, source_version: 1, published_at: expect.stringMatching(ISO), version_notes: null }]);
    const base = `${s.app.url}/v1/published-service/snapshot-landmarks`;
    expect(published.integration).toMatchObject({ method: "POST", url: base, versioned_url: `${base}/v1` });
    expect(published.integration.request_schema.required).toEqual(["landmark"]);
  },
);

clause(
  "2.8 · ¶1",
  "record fields (not shown): GET /v1/marketplace/{public_stub} adds shown_version, api_name, inputs, output_format, integration, example_request (and the read-only pricing)",
  async () => {
    const detail = await e.ok(s.call("GET", "/v1/marketplace/snapshot-landmarks", undefined, consumerKey));
    expect(Object.keys(detail).sort()).toEqual(
      [...LISTING, "api_name", "example_request", "inputs", "integration", "output_format", "pricing", "shown_version"].sort(),
    );
    expect(detail).toMatchObject({
      public_stub: "snapshot-landmarks",
      shown_version: 1,
      api_name: "Landmark facts",
      output_format: source.output_format,
      inputs: source.inputs,
    });
    expect(detail.example_request).toEqual(detail.integration.example_request);
  },
);

clause(
  "2.8 · ¶1",
  "the snapshot is immutable: the owner's new versions, edits, releases and deletion change neither what it runs nor its listing",
  async () => {
    const owner = await e.create();
    await e.publish(owner.id, { public_stub: "immutable-snapshot" });
    const before = await e.ok(s.call("GET", "/v1/marketplace/immutable-snapshot", undefined, consumerKey));
    const v2 = await e.newVersion(owner.id);
    await e.patch(v2.id, { api_name: "Changed", ...designerOnly });
    await e.release(v2.id);
    expect(await e.ranFields(e.run(owner.stub))).toEqual(["designer"]);
    await s.call("DELETE", `/v1/design-api/${owner.id}`);
    expect(await e.ok(s.call("GET", "/v1/marketplace/immutable-snapshot", undefined, consumerKey))).toEqual(before);
    expect(await e.ranFields(e.runPublished("immutable-snapshot", { landmark: "Eiffel Tower" }, "", consumerKey))).toEqual(LANDMARK_FIELDS);
  },
);

clause("2.8 · ¶1", "the snapshot is immutable in the database too: an UPDATE of a published version is refused", async () => {
  const outcome = await Promise.resolve(s.app.db.execute(sql`update published_versions set api_name = 'tampered'`)).then(
    () => "written",
    () => "refused",
  );
  expect(outcome).toBe("refused");
  expect((await e.ok(s.call("GET", "/v1/marketplace/snapshot-landmarks"))).api_name).toBe("Landmark facts");
});

clause("2.8 · ¶1", "public stubs are global: another account cannot take one (409); a malformed one is a 422", async () => {
  const rival = await e.create(undefined, consumerKey);
  const taken = await s.call("POST", `/v1/design-api/${rival.id}/publish`, { public_stub: "snapshot-landmarks" }, consumerKey);
  expect(taken.status).toBe(409);
  expect(await taken.json()).toEqual({ detail: 'the public stub "snapshot-landmarks" is taken', error: "conflict" });
  for (const bad of ["Has Spaces", "v2", "-leading"]) {
    const response = await s.call("POST", `/v1/design-api/${rival.id}/publish`, { public_stub: bad }, consumerKey);
    expect({ bad, status: response.status }).toEqual({ bad, status: 422 });
    expect((await response.json()).detail[0].loc).toEqual(["body", "public_stub"]);
  }
});

clause("2.8 · ¶1", "without public_stub the endpoint's own stub is the public stub", async () => {
  const plain = await e.create();
  expect((await e.publish(plain.id)).public_stub).toBe(plain.stub);
});

clause("2.8 · ¶1", "a public stub that names nothing is a 404 {detail, error: not_found}", async () => {
  const response = await e.runPublished("no-such-public-stub");
  expect(response.status).toBe(404);
  expect(await response.json()).toEqual({ detail: "published endpoint not found", error: "not_found" });
});
