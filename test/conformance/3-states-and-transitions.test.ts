/**
 * SPEC 3, states and transitions of endpoint versions: draft, released and
 * the derived live flag, every row of the transition table over HTTP, with
 * the state the records, the runs and the database show afterwards; and the
 * published versions' transitions the service chose.
 */
import { expect } from "bun:test";
import { sql } from "drizzle-orm";
import { clause } from "./clause.ts";
import { designerOnly, endpointCalls, LANDMARK_FIELDS, NOT_FOUND, type Rec } from "./endpoints-world.ts";
import { useSearchApp } from "./search-app.ts";

const s = useSearchApp();
const e = endpointCalls(s);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const DRAFT_EXISTS = { detail: "release or delete the draft first", error: "conflict" };

/** One integer from a `select ... as n` (PGlite and postgres-js shape their rows differently). */
async function count(query: ReturnType<typeof sql>): Promise<number> {
  const rows = (await s.app.db.execute(query)) as unknown as { rows?: { n: number }[] } & { n: number }[];
  return Number((rows.rows ?? rows)[0]!.n);
}
const draftsOf = (stub: string) =>
  count(
    sql`select count(*)::int as n from endpoint_versions v join endpoints l on l.id = v.endpoint_id where l.stub = ${stub} and v.frozen_at is null`,
  );
const states = async (id: number) => (await e.lineage(id)).map((v) => [v.version, v.state, v.is_live]);

clause("3 · ¶1", "a draft has frozen_at null and is editable; a released version has frozen_at set and is immutable", async () => {
  const v1 = await e.create();
  expect([v1.state, v1.frozen_at]).toEqual(["draft", null]);
  expect((await e.patch(v1.id, { api_name: "Edited draft" })).api_name).toBe("Edited draft");
  const released = await e.release(v1.id);
  expect(released.state).toBe("released");
  expect(released.frozen_at).toMatch(ISO);
  expect((await s.call("PATCH", `/v1/design-api/${v1.id}`, { api_name: "Too late" })).status).toBe(409);
  expect((await e.get(v1.id)).api_name).toBe("Edited draft");
});

clause(
  "3 · ¶1",
  "at most one draft per endpoint: 10 parallel new versions of a draft give one 200 and nine 409, and one draft in the database",
  async () => {
    const v1 = await e.create();
    const statuses = (await Promise.all(Array.from({ length: 10 }, () => s.call("POST", `/v1/design-api/${v1.id}/versions`)))).map(
      (r) => r.status,
    );
    expect(statuses.filter((x) => x === 200).length).toBe(1);
    expect(statuses.filter((x) => x === 409).length).toBe(9);
    expect(await states(v1.id)).toEqual([
      [1, "released", true],
      [2, "draft", false],
    ]);
    expect(await draftsOf(v1.stub)).toBe(1);
  },
);

clause("3 · ¶1", "live is the released version with the highest number; before any release, the newest version", async () => {
  const v1 = await e.create();
  expect(await states(v1.id)).toEqual([[1, "draft", true]]);
  const v2 = await e.newVersion(v1.id);
  await e.release(v2.id);
  await e.newVersion(v2.id);
  expect(await states(v1.id)).toEqual([
    [1, "released", false],
    [2, "released", true],
    [3, "draft", false],
  ]);
});

clause(
  "3 · ¶1",
  "a fresh endpoint is live and editable: its edits take effect at the unversioned URL at once, until released",
  async () => {
    const v1 = await e.create();
    expect(await e.ranFields(e.run(v1.stub))).toEqual(LANDMARK_FIELDS);
    await e.patch(v1.id, designerOnly);
    expect(await e.ranFields(e.run(v1.stub))).toEqual(["designer"]);
    await e.release(v1.id);
    expect((await s.call("PATCH", `/v1/design-api/${v1.id}`, { output_format: { height_metres: "number" } })).status).toBe(409);
    expect(await e.ranFields(e.run(v1.stub))).toEqual(["designer"]);
  },
);

clause(
  "3 · (none) · POST /v1/design-api",
  "a valid body creates a draft, live as the only version, with its integration object",
  async () => {
    const created = await e.ok(s.call("POST", "/v1/design-api", { original_prompt: "Given a city, find its mayor and population" }));
    const v1 = created.response;
    expect(v1).toMatchObject({ version: 1, state: "draft", frozen_at: null, is_live: true, live_version: 1 });
    expect(v1.versions.length).toBe(1);
    expect(v1.integration.url).toBe(`${s.app.url}/v1/user-defined-service/${v1.stub}`);
    expect(await draftsOf(v1.stub)).toBe(1);
  },
);

clause("3 · (none) · POST /v1/design-api", "an invalid body creates nothing (422)", async () => {
  const before = await count(sql`select count(*)::int as n from endpoint_versions`);
  expect((await s.call("POST", "/v1/design-api", { original_prompt: "x", inputs: [{ name: "1bad", type: "string" }] })).status).toBe(422);
  expect(await count(sql`select count(*)::int as n from endpoint_versions`)).toBe(before);
});

clause("3 · draft · POST .../release", "a draft is released with 200 and becomes live as the newest released version", async () => {
  const v1 = await e.create();
  const v2 = await e.newVersion(v1.id);
  await e.patch(v2.id, designerOnly);
  const response = await s.call("POST", `/v1/design-api/${v2.id}/release`);
  expect(response.status).toBe(200);
  const released = (await response.json()).response;
  expect(released).toMatchObject({ id: v2.id, state: "released", is_live: true, live_version: 2 });
  expect(released.frozen_at).toMatch(ISO);
  expect((await e.get(v1.id)).is_live).toBe(false);
  expect(await e.ranFields(e.run(v1.stub))).toEqual(["designer"]);
  expect(await draftsOf(v1.stub)).toBe(0);
});

clause("3 · released · POST .../release", "releasing a released version changes nothing and still answers 200", async () => {
  const v1 = await e.create();
  const first = await e.release(v1.id);
  const again = await s.call("POST", `/v1/design-api/${v1.id}/release`);
  expect(again.status).toBe(200);
  const second = (await again.json()).response;
  expect(second.frozen_at).toBe(first.frozen_at);
  expect(second.updated_at).toBe(first.updated_at);
  expect(await e.get(v1.id)).toEqual(first);
});

clause("3 · released · any edit (PATCH)", "any edit of a released version is a 409 and the version stays as it was", async () => {
  const v1 = await e.create();
  const released = await e.release(v1.id);
  const edits = [
    { api_name: "x" },
    { original_prompt: "x" },
    { inputs: [] },
    designerOnly,
    { version_notes: "x" },
    { graph: released.graph },
  ];
  for (const edit of edits) {
    const response = await s.call("PATCH", `/v1/design-api/${v1.id}`, edit);
    expect({ edit, status: response.status }).toEqual({ edit, status: 409 });
    expect(await response.json()).toEqual({
      detail: `version 1 is released and cannot change; POST /v1/design-api/${v1.id}/versions makes a new draft`,
      error: "conflict",
    });
  }
  expect(await e.get(v1.id)).toEqual(released);
});

clause("3 · released · any edit (PATCH)", "the database refuses a change to a released version too", async () => {
  const v1 = await e.create();
  await e.release(v1.id);
  const outcome = await Promise.resolve(s.app.db.execute(sql`update endpoint_versions set api_name = 'sneaky' where id = ${v1.id}`)).then(
    () => "written",
    () => "refused",
  );
  expect(outcome).toBe("refused");
  expect((await e.get(v1.id)).api_name).toBe("Landmark facts");
});

clause(
  "3 · draft · POST .../versions",
  "from a draft: the source is released first and becomes live; the new draft is a copy of the endpoint and its graph",
  async () => {
    const v1 = await e.create();
    await e.patch(v1.id, { api_name: "Tested" });
    const v2 = await e.newVersion(v1.id);
    const source = await e.get(v1.id);
    expect(source).toMatchObject({ state: "released", is_live: true, live_version: 1 });
    expect(source.frozen_at).toMatch(ISO);
    expect(v2).toMatchObject({ version: 2, state: "draft", frozen_at: null, is_live: false, live_version: 1, stub: v1.stub });
    for (const field of ["original_prompt", "api_name", "inputs", "output_format", "graph"]) expect(v2[field]).toEqual(source[field]);
  },
);

clause(
  "3 · draft · POST .../versions",
  "callers of the unversioned URL keep the tested behaviour; the new draft runs only at its pinned URL",
  async () => {
    const v1 = await e.create();
    const v2 = await e.newVersion(v1.id);
    await e.patch(v2.id, designerOnly);
    expect(await e.ranFields(e.run(v1.stub))).toEqual(LANDMARK_FIELDS);
    expect(await e.ranFields(e.run(v1.stub, undefined, "/v2"))).toEqual(["designer"]);
    expect(v2.integration.url).toBe(`${s.app.url}/v1/user-defined-service/${v1.stub}/v2`);
  },
);

clause(
  "3 · released (older) · POST .../versions",
  "from an older released version with no draft: a new draft copied from it, live once released (revert)",
  async () => {
    const v1 = await e.create();
    const v2 = await e.newVersion(v1.id);
    await e.patch(v2.id, designerOnly);
    await e.release(v2.id);
    const v3 = await e.newVersion(v1.id);
    expect(v3).toMatchObject({
      version: 3,
      state: "draft",
      is_live: false,
      live_version: 2,
      output_format: (await e.get(v1.id)).output_format,
    });
    expect(await states(v1.id)).toEqual([
      [1, "released", false],
      [2, "released", true],
      [3, "draft", false],
    ]);
    expect(await e.ranFields(e.run(v1.stub))).toEqual(["designer"]);
    await e.release(v3.id);
    expect(await e.ranFields(e.run(v1.stub))).toEqual(LANDMARK_FIELDS);
    expect((await e.get(v3.id)).is_live).toBe(true);
  },
);

clause(
  "3 · any · POST .../versions",
  'while another unreleased draft exists: 409 "release or delete the draft first", and nothing changes',
  async () => {
    const v1 = await e.create();
    await e.newVersion(v1.id);
    const before = await e.lineage(v1.id);
    const response = await s.call("POST", `/v1/design-api/${v1.id}/versions`, { version_notes: "refused" });
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual(DRAFT_EXISTS);
    expect(await e.lineage(v1.id)).toEqual(before);
    expect(await draftsOf(v1.stub)).toBe(1);
  },
);

clause("3 · any · POST .../versions", "once that draft is released, a new version is allowed again", async () => {
  const v1 = await e.create();
  const v2 = await e.newVersion(v1.id);
  expect((await s.call("POST", `/v1/design-api/${v1.id}/versions`)).status).toBe(409);
  await e.release(v2.id);
  expect((await e.newVersion(v1.id)).version).toBe(3);
});

clause("3 · draft · publish to marketplace", "publishing a draft releases it the same way: frozen, live, and refusing edits", async () => {
  const v1 = await e.create();
  await e.publish(v1.id);
  const after = await e.get(v1.id);
  expect(after).toMatchObject({ state: "released", is_live: true, live_version: 1 });
  expect(after.frozen_at).toMatch(ISO);
  expect((await s.call("PATCH", `/v1/design-api/${v1.id}`, { api_name: "x" })).status).toBe(409);
  expect(await draftsOf(v1.stub)).toBe(0);
});

clause(
  "3 · draft · publish to marketplace",
  "other effects (not shown): POST /v1/design-api/{api_id}/publish with an optional {public_stub, title, description, category, tags} adds a snapshot; a released version is published unchanged",
  async () => {
    const v1 = await e.create();
    const released = await e.release(v1.id);
    const published = await e.publish(v1.id, {
      public_stub: "state-machine-pub",
      title: "State machine",
      description: "d",
      category: "Tests",
      tags: ["A", "b"],
    });
    expect(published).toMatchObject({
      public_stub: "state-machine-pub",
      title: "State machine",
      description: "d",
      category: "Tests",
      tags: ["a", "b"],
      published_version: 1,
    });
    expect(await e.get(v1.id)).toEqual(released);
    expect(await e.ranFields(e.runPublished("state-machine-pub"))).toEqual(LANDMARK_FIELDS);
    const noBody = await e.create();
    expect((await s.call("POST", `/v1/design-api/${noBody.id}/publish`)).status).toBe(200);
  },
);

clause(
  "3 · any · DELETE /v1/design-api/{api_id}",
  "DELETE removes the whole lineage permanently: every version id is 404, the stub no longer runs, the list omits it",
  async () => {
    const v1 = await e.create();
    const v2 = await e.newVersion(v1.id);
    const response = await s.call("DELETE", `/v1/design-api/${v1.id}`);
    expect(response.status).toBe(200);
    for (const id of [v1.id, v2.id]) {
      const gone = await s.call("GET", `/v1/design-api/${id}`);
      expect(gone.status).toBe(404);
      expect(await gone.json()).toEqual(NOT_FOUND);
    }
    expect((await e.run(v1.stub)).status).toBe(404);
    expect((await e.run(v1.stub, undefined, "/v2")).status).toBe(404);
    expect((await e.ok(s.call("GET", "/v1/design-api?all_versions=true"))).some((r: Rec) => r.stub === v1.stub)).toBe(false);
    expect(await count(sql`select count(*)::int as n from endpoint_versions where id in (${v1.id}, ${v2.id})`)).toBe(0);
    const again = await s.call("DELETE", `/v1/design-api/${v1.id}`);
    expect(again.status).toBe(404);
  },
);

clause("3 · any · DELETE /v1/design-api/{api_id}", "a draft and a released version are both deletable", async () => {
  const draft = await e.create();
  expect((await s.call("DELETE", `/v1/design-api/${draft.id}`)).status).toBe(200);
  const released = await e.create();
  await e.release(released.id);
  expect((await s.call("DELETE", `/v1/design-api/${released.id}`)).status).toBe(200);
  expect((await s.call("GET", `/v1/design-api/${released.id}`)).status).toBe(404);
});

clause(
  "3 · ¶2",
  "published versions (not shown): publishing again adds the next published version; the unversioned path moves to it, /v1 stays",
  async () => {
    const v1 = await e.create();
    await e.publish(v1.id, { public_stub: "two-published-versions" });
    const v2 = await e.newVersion(v1.id);
    await e.patch(v2.id, designerOnly);
    const again = await e.publish(v2.id);
    expect(again).toMatchObject({ public_stub: "two-published-versions", published_version: 2, latest_version: 2 });
    expect(again.versions.map((v: Rec) => [v.version, v.source_version])).toEqual([
      [1, 1],
      [2, 2],
    ]);
    expect(await e.ranFields(e.runPublished("two-published-versions"))).toEqual(["designer"]);
    expect(await e.ranFields(e.runPublished("two-published-versions", undefined, "/v1"))).toEqual(LANDMARK_FIELDS);
  },
);

clause(
  "3 · ¶2",
  "published versions (not shown): nothing removes or changes them; deleting the source endpoint leaves them callable",
  async () => {
    const v1 = await e.create();
    await e.publish(v1.id, { public_stub: "outlives-its-source" });
    expect((await s.call("DELETE", `/v1/design-api/${v1.id}`)).status).toBe(200);
    expect(await e.ranFields(e.runPublished("outlives-its-source"))).toEqual(LANDMARK_FIELDS);
    for (const [method, path] of [
      ["DELETE", "/v1/marketplace/outlives-its-source"],
      ["DELETE", "/v1/published-service/outlives-its-source"],
    ]) {
      expect((await s.call(method!, path!)).status).toBe(404);
    }
    expect(await e.ranFields(e.runPublished("outlives-its-source", undefined, "/v1"))).toEqual(LANDMARK_FIELDS);
  },
);
