/**
 * Designed endpoints' records and versions over HTTP: every transition of
 * the state machine, the record fields, ownership, immutability, and the
 * one-draft rule under concurrency.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { client, landmarkEndpoint } from "../helpers/endpoints.ts";

let database: TestDatabase;
let app: TestApp;
let owner: ReturnType<typeof client>;
let stranger: ReturnType<typeof client>;

beforeAll(async () => {
  database = await freshDatabase();
  app = await startTestApp(database, { env: { SEARCH_PROVIDERS: "local" } });
  owner = client(app, (await app.account({ name: "owner", limit: 100_000 })).apiKey);
  stranger = client(app, (await app.account({ name: "stranger", limit: 100_000 })).apiKey);
});
afterAll(async () => {
  await app.stop();
  await database.drop();
});

const create = async (body: unknown = landmarkEndpoint) => {
  const response = await owner.call("POST", "/v1/design-api", body);
  expect(response.status).toBe(200);
  return ((await response.json()) as { response: Record<string, any> }).response;
};

describe("creation", () => {
  test("returns {response: record}: a draft, live, version 1, with every record field", async () => {
    const record = await create();
    for (const field of [
      "id",
      "original_prompt",
      "api_name",
      "stub",
      "inputs",
      "output_format",
      "version",
      "frozen_at",
      "is_live",
      "live_version",
      "versions",
      "integration",
      "graph",
      "version_notes",
      "created_at",
      "updated_at",
    ]) {
      expect(record).toHaveProperty(field);
    }
    expect(record).toMatchObject({
      version: 1,
      state: "draft",
      frozen_at: null,
      is_live: true,
      live_version: 1,
      api_name: "Landmark facts",
      version_notes: null,
    });
    expect(record.versions).toEqual([
      { id: record.id, version: 1, state: "draft", frozen_at: null, is_latest: true, is_live: true, version_notes: null },
    ]);
    expect(Number.isInteger(record.id)).toBe(true);
    expect(record.id).toBeGreaterThan(0);
    expect(record.stub).toMatch(/^landmark-facts-[0-9a-z]{6}$/);
    expect(record.stub).not.toMatch(/^v\d+$/);
    // Stored inputs show `required` explicitly; a non-null default makes an input optional.
    expect(record.inputs).toEqual([
      { name: "landmark", type: "string", description: "The landmark's name", required: true, default: null },
      { name: "city", type: "string", required: false, default: "Paris" },
      { name: "language", type: "string", required: false, default: null },
    ]);
  });

  test("stubs are unique, even for the same name", async () => {
    const stubs = new Set<string>();
    for (let i = 0; i < 5; i++) stubs.add((await create()).stub);
    expect(stubs.size).toBe(5);
  });

  test("an output with a list gets an optional max_results input (number, default 10)", async () => {
    const record = await create({ ...landmarkEndpoint, output_format: { towers: [{ name: "string" }] }, graph: undefined });
    expect(record.inputs.at(-1)).toMatchObject({ name: "max_results", type: "number", required: false, default: 10 });
    const nested = await create({ ...landmarkEndpoint, output_format: { city: { sights: "array" } }, graph: undefined });
    expect(nested.inputs.some((i: { name: string }) => i.name === "max_results")).toBe(true);
    const flat = await create({ ...landmarkEndpoint, graph: undefined });
    expect(flat.inputs.some((i: { name: string }) => i.name === "max_results")).toBe(false);
  });

  const invalid: [string, Record<string, unknown>, (string | number)[]][] = [
    ["a missing prompt", { api_name: "x" }, ["body", "original_prompt"]],
    ["a bad input name", { ...landmarkEndpoint, inputs: [{ name: "1st", type: "string" }] }, ["body", "inputs", 0, "name"]],
    ["the reserved max_results", { ...landmarkEndpoint, inputs: [{ name: "max_results", type: "number" }] }, ["body", "inputs", 0, "name"]],
    ["an unknown input type", { ...landmarkEndpoint, inputs: [{ name: "x", type: "date" }] }, ["body", "inputs", 0, "type"]],
    [
      "a default of the wrong type",
      { ...landmarkEndpoint, inputs: [{ name: "year", type: "number", default: "2020" }] },
      ["body", "inputs", 0, "default"],
    ],
    [
      "a duplicate input",
      {
        ...landmarkEndpoint,
        inputs: [
          { name: "a", type: "string" },
          { name: "a", type: "number" },
        ],
      },
      ["body", "inputs", 1, "name"],
    ],
    ["a bad output_format", { ...landmarkEndpoint, output_format: { a: "text" } }, ["body", "output_format", "a"]],
    [
      "a graph with a cycle",
      {
        ...landmarkEndpoint,
        graph: {
          nodes: [
            { id: "a", type: "search_agent", name: "A", system_prompt: "x" },
            { id: "b", type: "general_agent", name: "B", system_prompt: "y" },
          ],
          edges: [
            { id: "e1", source: "a", target: "b" },
            { id: "e2", source: "b", target: "a" },
          ],
        },
      },
      ["body", "graph", "edges"],
    ],
    [
      "an edge to nowhere",
      {
        ...landmarkEndpoint,
        graph: {
          nodes: [{ id: "a", type: "search_agent", name: "A", system_prompt: "x" }],
          edges: [{ id: "e1", source: "a", target: "zz" }],
        },
      },
      ["body", "graph", "edges", 0, "target"],
    ],
    [
      "a node this deployment cannot run",
      { ...landmarkEndpoint, graph: { nodes: [{ id: "mail", type: "email_agent", name: "Mail", system_prompt: "x" }], edges: [] } },
      ["body", "graph", "nodes", 0, "type"],
    ],
    [
      "a node without a name",
      { ...landmarkEndpoint, graph: { nodes: [{ id: "a", type: "search_agent", name: "", system_prompt: "x" }], edges: [] } },
      ["body", "graph", "nodes", 0, "name"],
    ],
  ];
  for (const [label, body, loc] of invalid) {
    test(`422 for ${label}`, async () => {
      const response = await owner.call("POST", "/v1/design-api", body);
      expect(response.status).toBe(422);
      expect(((await response.json()) as { detail: { loc: unknown }[] }).detail.map((d) => d.loc)).toContainEqual(loc);
    });
  }
});

describe("the state machine (every transition)", () => {
  test("draft: PATCH changes only the fields given, checked like creation", async () => {
    const v1 = await create();
    const patched = await owner.json("PATCH", `/v1/design-api/${v1.id}`, { api_name: "Renamed", version_notes: "first notes" });
    expect(patched).toMatchObject({
      api_name: "Renamed",
      version_notes: "first notes",
      original_prompt: v1.original_prompt,
      output_format: v1.output_format,
      state: "draft",
    });
    const bad = await owner.call("PATCH", `/v1/design-api/${v1.id}`, { inputs: [{ name: "bad name", type: "string" }] });
    expect(bad.status).toBe(422);
    // A bad output format is reported once, where it was sent (not again on the graph it would have reached).
    const badFormat = await owner.call("PATCH", `/v1/design-api/${v1.id}`, { output_format: { a: "text" } });
    expect(((await badFormat.json()) as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc)).toEqual([
      ["body", "output_format", "a"],
    ]);
    const refused = await owner.call("PATCH", `/v1/design-api/${v1.id}`, {
      graph: { nodes: [{ id: "db", type: "database_agent", name: "DB", system_prompt: "x" }], edges: [] },
    });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(await refused.json())).toContain("cannot run");
    expect((await owner.json("GET", `/v1/design-api/${v1.id}`)).api_name).toBe("Renamed");
  });

  test("draft: /release freezes it and it stays live; /release again changes nothing", async () => {
    const v1 = await create();
    const released = (await owner.json("POST", `/v1/design-api/${v1.id}/release`)).response;
    expect(released).toMatchObject({ state: "released", is_live: true, live_version: 1 });
    expect(released.frozen_at).not.toBeNull();
    const again = await owner.call("POST", `/v1/design-api/${v1.id}/release`);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { response: { frozen_at: string } }).response.frozen_at).toBe(released.frozen_at);
  });

  test("released: PATCH is a 409 and the version does not change", async () => {
    const v1 = await create();
    await owner.call("POST", `/v1/design-api/${v1.id}/release`);
    const response = await owner.call("PATCH", `/v1/design-api/${v1.id}`, { api_name: "Too late" });
    expect(response.status).toBe(409);
    expect(((await response.json()) as { error: string }).error).toBe("conflict");
    expect((await owner.json("GET", `/v1/design-api/${v1.id}`)).api_name).toBe("Landmark facts");
  });

  test("draft: POST /versions releases it (live) and creates the next draft as a copy", async () => {
    const v1 = await create();
    await owner.call("PATCH", `/v1/design-api/${v1.id}`, { api_name: "Edited before release" });
    const v2 = (await owner.json("POST", `/v1/design-api/${v1.id}/versions`, { version_notes: "second" })).response;
    expect(v2).toMatchObject({
      version: 2,
      state: "draft",
      is_live: false,
      live_version: 1,
      api_name: "Edited before release",
      version_notes: "second",
      stub: v1.stub,
    });
    expect(v2.graph).toEqual(v1.graph);
    const v1After = await owner.json("GET", `/v1/design-api/${v1.id}`);
    expect(v1After).toMatchObject({ state: "released", is_live: true, live_version: 1 });
    expect(
      v1After.versions.map((v: { version: number; is_latest: boolean; is_live: boolean }) => [v.version, v.is_latest, v.is_live]),
    ).toEqual([
      [1, false, true],
      [2, true, false],
    ]);
  });

  test("POST /versions accepts no body, a null body, or version_notes", async () => {
    const v1 = await create();
    const noBody = await owner.call("POST", `/v1/design-api/${v1.id}/versions`);
    expect(noBody.status).toBe(200);
    const v2 = ((await noBody.json()) as { response: { id: string } }).response;
    await owner.call("POST", `/v1/design-api/${v2.id}/release`);
    const nullBody = await owner.call("POST", `/v1/design-api/${v2.id}/versions`, null);
    expect(nullBody.status).toBe(200);
  });

  test('released, while a draft exists: POST /versions is 409 "release or delete the draft first"', async () => {
    const v1 = await create();
    await owner.json("POST", `/v1/design-api/${v1.id}/versions`);
    const response = await owner.call("POST", `/v1/design-api/${v1.id}/versions`);
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({ detail: "release or delete the draft first", error: "conflict" });
  });

  test("released, no draft: POST /versions creates a draft copied from it (the revert path)", async () => {
    const v1 = await create();
    const v2 = (await owner.json("POST", `/v1/design-api/${v1.id}/versions`)).response;
    await owner.call("PATCH", `/v1/design-api/${v2.id}`, { api_name: "Version two" });
    const releasedV2 = (await owner.json("POST", `/v1/design-api/${v2.id}/release`)).response;
    expect(releasedV2).toMatchObject({ is_live: true, live_version: 2 });
    const v3 = (await owner.json("POST", `/v1/design-api/${v1.id}/versions`)).response;
    expect(v3).toMatchObject({ version: 3, state: "draft", api_name: "Landmark facts", is_live: false, live_version: 2 });
  });

  test("live is the released version with the highest number; before any release, the newest version", async () => {
    const v1 = await create();
    expect(await owner.json("GET", `/v1/design-api/${v1.id}`)).toMatchObject({ is_live: true, live_version: 1 });
    const v2 = (await owner.json("POST", `/v1/design-api/${v1.id}/versions`)).response;
    await owner.call("POST", `/v1/design-api/${v2.id}/release`);
    const v3 = (await owner.json("POST", `/v1/design-api/${v2.id}/versions`)).response;
    expect(v3).toMatchObject({ live_version: 2, is_live: false });
    const all = await owner.json("GET", `/v1/design-api/${v1.id}/versions`);
    expect(all.map((r: { version: number; is_live: boolean; state: string }) => [r.version, r.state, r.is_live])).toEqual([
      [1, "released", false],
      [2, "released", true],
      [3, "draft", false],
    ]);
  });

  test("DELETE removes the whole lineage, permanently", async () => {
    const v1 = await create();
    const v2 = (await owner.json("POST", `/v1/design-api/${v1.id}/versions`)).response;
    const deleted = await owner.json("DELETE", `/v1/design-api/${v2.id}`);
    expect(deleted.response).toEqual({ id: v2.id, deleted: true, versions_deleted: 2 });
    for (const id of [v1.id, v2.id]) expect((await owner.call("GET", `/v1/design-api/${id}`)).status).toBe(404);
    expect((await owner.call("POST", `/v1/user-defined-service/${v1.stub}`, { landmark: "x" })).status).toBe(404);
  });
});

describe("listing", () => {
  test("the highest version of each endpoint, or every version with all_versions=true", async () => {
    const fresh = client(app, (await app.account({ name: "lister", limit: 100_000 })).apiKey);
    const a = (await fresh.json("POST", "/v1/design-api", landmarkEndpoint)).response;
    const b = (await fresh.json("POST", "/v1/design-api", { ...landmarkEndpoint, api_name: "Second" })).response;
    await fresh.json("POST", `/v1/design-api/${a.id}/versions`);
    const latest = await fresh.json("GET", "/v1/design-api");
    expect(latest.map((r: { api_name: string; version: number }) => [r.api_name, r.version]).sort()).toEqual([
      ["Landmark facts", 2],
      ["Second", 1],
    ]);
    const all = await fresh.json("GET", "/v1/design-api?all_versions=true");
    expect(all.length).toBe(3);
    expect(all.some((r: { id: string }) => r.id === b.id)).toBe(true);
  });
});

describe("ownership: another account's ids are 404 on every route", () => {
  test("GET, PATCH, DELETE, versions, release, publish, and running the stub", async () => {
    const mine = await create();
    const probes: [string, string, unknown?][] = [
      ["GET", `/v1/design-api/${mine.id}`],
      ["PATCH", `/v1/design-api/${mine.id}`, { api_name: "stolen" }],
      ["DELETE", `/v1/design-api/${mine.id}`],
      ["GET", `/v1/design-api/${mine.id}/versions`],
      ["POST", `/v1/design-api/${mine.id}/versions`],
      ["POST", `/v1/design-api/${mine.id}/release`],
      ["POST", `/v1/design-api/${mine.id}/publish`, {}],
      ["POST", `/v1/user-defined-service/${mine.stub}`, { landmark: "x" }],
      ["POST", `/v1/user-defined-service/${mine.stub}/v1`, { landmark: "x" }],
    ];
    const nobody = await stranger.json("GET", "/v1/design-api/2000000000");
    for (const [method, path, body] of probes) {
      const response = await stranger.call(method, path, body);
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 404 });
      const answer = (await response.json()) as { error: string; detail: string };
      expect(answer.error).toBe("not_found");
      if (path.startsWith("/v1/design-api/")) expect(answer).toEqual(nobody);
    }
    expect((await stranger.json("GET", "/v1/design-api")).some((r: { id: string }) => r.id === mine.id)).toBe(false);
    // Untouched for its owner.
    expect(await owner.json("GET", `/v1/design-api/${mine.id}`)).toMatchObject({ api_name: "Landmark facts", state: "draft" });
  });
});

describe("ids are integers", () => {
  test("a path id that is not an integer is a 422 in FastAPI's shape, on every api_id route", async () => {
    const parsing = {
      detail: [
        { loc: ["path", "api_id"], msg: "Input should be a valid integer, unable to parse string as an integer", type: "int_parsing" },
      ],
    };
    for (const bad of ["abc", "1.5", "api_01m81vxjpee6ta28c6edpbkmfh", "12abc"]) {
      for (const [method, suffix] of [
        ["GET", ""],
        ["PATCH", ""],
        ["DELETE", ""],
        ["GET", "/versions"],
        ["POST", "/versions"],
        ["POST", "/release"],
        ["POST", "/publish"],
      ] as const) {
        const response = await owner.call(method, `/v1/design-api/${bad}${suffix}`, method === "PATCH" ? { api_name: "x" } : undefined);
        expect({ bad, method, suffix, status: response.status }).toEqual({ bad, method, suffix, status: 422 });
        expect(await response.json()).toEqual(parsing);
      }
    }
  });

  test("integers no version can have (0, negative, past the column's range) are 404 without reaching the database", async () => {
    const nobody = await owner.json("GET", "/v1/design-api/2000000000");
    for (const id of ["0", "-1", "2147483648", "99999999999999999999"]) {
      const response = await owner.call("GET", `/v1/design-api/${id}`);
      expect({ id, status: response.status }).toEqual({ id, status: 404 });
      expect(await response.json()).toEqual(nobody);
    }
  });

  test("ids come from one sequence: each new version has a larger id than every earlier one", async () => {
    const a = await create();
    const b = await create();
    const a2 = (await owner.json("POST", `/v1/design-api/${a.id}/versions`)).response;
    expect(b.id).toBeGreaterThan(a.id);
    expect(a2.id).toBeGreaterThan(b.id);
    expect(a2.versions.map((v: { id: number }) => v.id)).toEqual([a.id, a2.id]);
  });
});

describe("the rules live in the database too", () => {
  test("20 parallel POST /versions on one draft: exactly one succeeds, the rest 409, one draft afterwards", async () => {
    const v1 = await create();
    const responses = await Promise.all(Array.from({ length: 20 }, () => owner.call("POST", `/v1/design-api/${v1.id}/versions`)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBe(1);
    expect(statuses.filter((s) => s === 409).length).toBe(19);
    const lineage = await owner.json("GET", `/v1/design-api/${v1.id}/versions`);
    expect(lineage.map((r: { version: number; state: string }) => [r.version, r.state])).toEqual([
      [1, "released"],
      [2, "draft"],
    ]);
    const rows = await app.db.execute(
      sql`select count(*)::int as n from endpoint_versions v join endpoints e on e.id = v.endpoint_id where e.stub = ${v1.stub} and v.frozen_at is null`,
    );
    const count = ((rows as unknown as { rows?: { n: number }[] }).rows ?? (rows as unknown as { n: number }[]))[0]!.n;
    expect(Number(count)).toBe(1);
  });

  test("a released version cannot be changed even by SQL, and a second draft cannot be inserted", async () => {
    const v1 = await create();
    await owner.call("POST", `/v1/design-api/${v1.id}/versions`);
    const outcome = (query: PromiseLike<unknown>) =>
      Promise.resolve(query).then(
        () => "written",
        () => "refused",
      );
    expect(await outcome(app.db.execute(sql`update endpoint_versions set api_name = 'sneaky' where id = ${v1.id}`))).toBe("refused");
    expect(
      await outcome(
        app.db.execute(sql`insert into endpoint_versions (id, endpoint_id, account_id, version, original_prompt, api_name, inputs, output_format, graph)
          select 'api_extra', endpoint_id, account_id, 99, 'p', 'n', '[]', '{}', '{}' from endpoint_versions where id = ${v1.id}`),
      ),
    ).toBe("refused");
  });
});
