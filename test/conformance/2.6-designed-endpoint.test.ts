/**
 * SPEC 2.6, the designed endpoint (a version record): its fields and their
 * types, the input definition, the integration object, and the
 * `{"response": ...}` wrapping of creation answers.
 */
import { beforeAll, expect } from "bun:test";
import { sql } from "drizzle-orm";
import { landmarkEndpoint, validatesAgainst } from "../helpers/endpoints.ts";
import { clause } from "./clause.ts";
import { endpointCalls, INT_PARSING, LANDMARK_FIELDS, NOT_FOUND, RECORD_FIELDS, type Rec } from "./endpoints-world.ts";
import { useSearchApp } from "./search-app.ts";

const s = useSearchApp();
const e = endpointCalls(s);
let record: Rec;

beforeAll(async () => {
  record = await e.create();
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const withInputs = (inputs: unknown[]) => ({
  original_prompt: "Given a landmark, find its designer",
  api_name: "Inputs",
  inputs,
  output_format: { designer: "string" },
});
/** The landmark endpoint with one input, `landmark`, as given. */
const oneInput = (input: Rec) => ({
  ...landmarkEndpoint,
  inputs: [input],
  graph: { nodes: [{ id: "research", type: "search_agent", name: "Research", system_prompt: "Facts about {landmark}" }], edges: [] },
});
const locs = async (response: Response | Promise<Response>) => {
  const answered = await response;
  expect(answered.status).toBe(422);
  return ((await answered.json()) as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc);
};

clause("2.6 · ¶1", "every version is its own record with its own integer id; all versions share one stub", async () => {
  const v1 = await e.create();
  const v2 = await e.newVersion(v1.id);
  expect(Number.isInteger(v2.id)).toBe(true);
  expect(v2.id).not.toBe(v1.id);
  expect(v2.stub).toBe(v1.stub);
  const [again1, again2] = [await e.get(v1.id), await e.get(v2.id)];
  expect([again1.id, again1.version, again1.stub]).toEqual([v1.id, 1, v1.stub]);
  expect([again2.id, again2.version, again2.stub]).toEqual([v2.id, 2, v1.stub]);
});

clause("2.6 · id", "id is an integer on the record, on every versions[] entry and on list items", async () => {
  const v2 = await e.newVersion((await e.create()).id);
  expect(Number.isInteger(v2.id)).toBe(true);
  for (const entry of v2.versions) expect(Number.isInteger(entry.id)).toBe(true);
  const list = await e.ok(s.call("GET", "/v1/design-api?all_versions=true"));
  expect(list.length).toBeGreaterThan(0);
  for (const item of list) expect(Number.isInteger(item.id)).toBe(true);
});

clause("2.6 · id", "the id is the {api_id} of the record's routes: GET by it answers that version", async () => {
  const read = await e.get(record.id);
  expect(read.id).toBe(record.id);
  expect(read.stub).toBe(record.stub);
});

clause("2.6 · id", "a non-integer api_id (abc, 1.5, api_01abc) is a 422 int_parsing at [path, api_id]", async () => {
  for (const bad of ["abc", "1.5", "api_01abc"]) {
    const response = await s.call("GET", `/v1/design-api/${bad}`);
    expect({ bad, status: response.status }).toEqual({ bad, status: 422 });
    expect(await response.json()).toEqual(INT_PARSING);
  }
});

clause(
  "2.6 · id",
  "another account's integer id and an id that does not exist are 404 {detail: endpoint not found, error: not_found}",
  async () => {
    const other = await s.app.account({ name: "other", limit: 100_000 });
    const theirs = await s.call("GET", `/v1/design-api/${record.id}`, undefined, other.apiKey);
    expect(theirs.status).toBe(404);
    expect(await theirs.json()).toEqual(NOT_FOUND);
    const nobody = await s.call("GET", "/v1/design-api/987654321");
    expect(nobody.status).toBe(404);
    expect(await nobody.json()).toEqual(NOT_FOUND);
  },
);

clause("2.6 · original_prompt", "original_prompt alone creates an endpoint, and the record keeps it verbatim", async () => {
  const prompt = "Given a company name, find its CEO, founding year and whether it is publicly traded";
  const created = await e.create({ original_prompt: prompt });
  expect(created.original_prompt).toBe(prompt);
  expect(created.inputs.length).toBeGreaterThan(0);
  expect(Object.keys(created.output_format).length).toBeGreaterThan(0);
});

clause(
  "2.6 · original_prompt",
  "it is the only required field: without it creation is a 422 missing at [body, original_prompt]",
  async () => {
    const response = await s.call("POST", "/v1/design-api", { api_name: "No prompt" });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ detail: [{ loc: ["body", "original_prompt"], msg: "Field required", type: "missing" }] });
  },
);

clause("2.6 · api_name", "api_name is a name produced for the endpoint when none is given, or the one given", async () => {
  const produced = await e.create({ original_prompt: "Given a city, find its mayor" });
  expect(typeof produced.api_name).toBe("string");
  expect(produced.api_name.trim().length).toBeGreaterThan(0);
  expect(record.api_name).toBe("Landmark facts");
});

clause("2.6 · stub", "stub is a string path segment, and the URL it names runs the endpoint", async () => {
  expect(typeof record.stub).toBe("string");
  expect(record.stub).toMatch(/^[a-z0-9][a-z0-9-]*$/);
  expect(record.stub).not.toMatch(/^v\d+$/);
  expect(await e.ranFields(e.run(record.stub))).toEqual(LANDMARK_FIELDS);
});

clause("2.6 · stub", "stubs are unique per endpoint, even for the same api_name", async () => {
  const other = await e.create();
  expect(other.stub).not.toBe(record.stub);
});

clause(
  "2.6 · inputs",
  "inputs is an array of input definitions {name, type, required, default} (plus description when given)",
  async () => {
    expect(record.inputs).toEqual([
      { name: "landmark", type: "string", description: "The landmark's name", required: true, default: null },
      { name: "city", type: "string", required: false, default: "Paris" },
      { name: "language", type: "string", required: false, default: null },
    ]);
  },
);

clause("2.6 · output_format", "nested objects, one-item arrays and string, number, boolean, integer are kept as given", async () => {
  const shape = {
    name: "string",
    employees: "integer",
    revenue: "number",
    listed: "boolean",
    address: { city: "string", country: "string" },
    people: [{ name: "string", age: "integer" }],
  };
  const created = await e.create({
    original_prompt: "Given a company name, describe it",
    inputs: [{ name: "company", type: "string" }],
    output_format: shape,
  });
  expect(created.output_format).toEqual(shape);
  expect((await e.get(created.id)).output_format).toEqual(shape);
});

clause("2.6 · output_format", "a type name outside the notation is a 422 at its field", async () => {
  expect(await locs(s.call("POST", "/v1/design-api", { ...landmarkEndpoint, output_format: { designer: "text" } }))).toContainEqual([
    "body",
    "output_format",
    "designer",
  ]);
});

clause("2.6 · version", "version is an integer: 1 at creation, then the next number for each new version", async () => {
  const v1 = await e.create();
  const v2 = await e.newVersion(v1.id);
  await e.release(v2.id);
  const v3 = await e.newVersion(v2.id);
  expect([v1.version, v2.version, v3.version]).toEqual([1, 2, 3]);
  for (const v of [v1, v2, v3]) expect(Number.isInteger(v.version)).toBe(true);
});

clause("2.6 · frozen_at", "null on a draft; an ISO timestamp once released, which does not change afterwards", async () => {
  const v1 = await e.create();
  expect(v1.frozen_at).toBeNull();
  const released = await e.release(v1.id);
  expect(released.frozen_at).toMatch(ISO);
  expect(Math.abs(Date.parse(released.frozen_at) - Date.now())).toBeLessThan(60_000);
  await e.release(v1.id);
  expect((await e.get(v1.id)).frozen_at).toBe(released.frozen_at);
});

clause(
  "2.6 · is_live",
  "true when the unversioned URL runs this version: a fresh draft is; a new draft is not until released",
  async () => {
    const v1 = await e.create();
    expect(v1.is_live).toBe(true);
    const v2 = await e.newVersion(v1.id);
    expect([(await e.get(v1.id)).is_live, v2.is_live]).toEqual([true, false]);
    await e.release(v2.id);
    expect([(await e.get(v1.id)).is_live, (await e.get(v2.id)).is_live]).toEqual([false, true]);
  },
);

clause("2.6 · live_version", "the integer number of the lineage's live version, the same on every version's record", async () => {
  const v1 = await e.create();
  expect(v1.live_version).toBe(1);
  const v2 = await e.newVersion(v1.id);
  expect([(await e.get(v1.id)).live_version, v2.live_version]).toEqual([1, 1]);
  await e.release(v2.id);
  const both = [await e.get(v1.id), await e.get(v2.id)];
  for (const v of both) {
    expect(v.live_version).toBe(2);
    expect(Number.isInteger(v.live_version)).toBe(true);
  }
});

clause(
  "2.6 · versions",
  "the whole lineage on every record, each entry with frozen_at, is_latest (highest number) and is_live",
  async () => {
    const v1 = await e.create();
    const v2 = await e.newVersion(v1.id, { version_notes: "second" });
    const frozen = (await e.get(v1.id)).frozen_at;
    const expected = [
      { id: v1.id, version: 1, state: "released", frozen_at: frozen, is_latest: false, is_live: true, version_notes: null },
      { id: v2.id, version: 2, state: "draft", frozen_at: null, is_latest: true, is_live: false, version_notes: "second" },
    ];
    expect(v2.versions).toEqual(expected);
    expect((await e.get(v1.id)).versions).toEqual(expected);
  },
);

clause(
  "2.6 · integration",
  "integration is {method, url, versioned_url, request_schema, response_schema, example_request, code, agent_handoff}",
  async () => {
    const integration = record.integration;
    expect(Object.keys(integration).sort()).toEqual([
      "agent_handoff",
      "code",
      "example_request",
      "method",
      "request_schema",
      "response_schema",
      "url",
      "versioned_url",
    ]);
    expect(integration.method).toBe("POST");
    for (const field of ["url", "versioned_url", "agent_handoff"]) expect(typeof integration[field]).toBe("string");
    expect(Object.keys(integration.code).sort()).toEqual(["curl", "javascript", "python"]);
    for (const sample of Object.values(integration.code)) expect(typeof sample).toBe("string");
    expect(integration.request_schema.type).toBe("object");
    expect(integration.response_schema.type).toBe("object");
  },
);

clause(
  "2.6 · ¶2",
  "other fields of the record (not shown): graph, state, version_notes, created_at, updated_at, and nothing else",
  async () => {
    for (const shown of [record, await e.get(record.id), (await e.ok(s.call("GET", "/v1/design-api")))[0]]) {
      expect(Object.keys(shown).sort()).toEqual(RECORD_FIELDS);
    }
    expect(record.state).toBe("draft");
    expect(record.created_at).toMatch(ISO);
    expect(record.updated_at).toMatch(ISO);
    expect(Object.keys(record.graph).sort()).toEqual(["edges", "nodes"]);
  },
);

clause(
  "2.6 · ¶2",
  "version_notes (not shown): a string or null named version_notes on the record and on each versions[] entry, set by POST .../versions or PATCH",
  async () => {
    const v1 = await e.create();
    expect(v1.version_notes).toBeNull();
    const v2 = await e.newVersion(v1.id, { version_notes: "from the versions call" });
    expect(v2.version_notes).toBe("from the versions call");
    const patched = await e.patch(v2.id, { version_notes: "edited" });
    expect(patched.version_notes).toBe("edited");
    expect(patched.versions.map((v: Rec) => v.version_notes)).toEqual([null, "edited"]);
  },
);

clause("2.6 · name", "a name begins with a letter or underscore and holds letters, digits, underscores", async () => {
  const created = await e.create(
    withInputs([
      { name: "_private", type: "string" },
      { name: "Year2024_b", type: "number" },
    ]),
  );
  expect(created.inputs.map((i: Rec) => i.name)).toEqual(["_private", "Year2024_b"]);
  for (const bad of ["1st", "has-dash", "has space", "café", ""]) {
    expect({ bad, locs: await locs(s.call("POST", "/v1/design-api", withInputs([{ name: bad, type: "string" }]))) }).toEqual({
      bad,
      locs: [["body", "inputs", 0, "name"]],
    });
  }
});

clause("2.6 · name", "max_results is reserved: an input of that name is a 422", async () => {
  expect(await locs(s.call("POST", "/v1/design-api", withInputs([{ name: "max_results", type: "number" }])))).toEqual([
    ["body", "inputs", 0, "name"],
  ]);
});

clause("2.6 · type", "type is one of string, number, boolean; anything else is a 422 at the input's type", async () => {
  const created = await e.create(
    withInputs([
      { name: "s", type: "string" },
      { name: "n", type: "number" },
      { name: "b", type: "boolean" },
    ]),
  );
  expect(created.inputs.map((i: Rec) => i.type)).toEqual(["string", "number", "boolean"]);
  for (const bad of ["integer", "date", "array", "object"]) {
    expect({ bad, locs: await locs(s.call("POST", "/v1/design-api", withInputs([{ name: "x", type: bad }]))) }).toEqual({
      bad,
      locs: [["body", "inputs", 0, "type"]],
    });
  }
});

clause(
  "2.6 · required",
  "required defaults to true: an input without the key is required in the record, the schema and at run time",
  async () => {
    const created = await e.create(oneInput({ name: "landmark", type: "string" }));
    expect(created.inputs[0]).toEqual({ name: "landmark", type: "string", required: true, default: null });
    expect(created.integration.request_schema.required).toEqual(["landmark"]);
    expect((await e.run(created.stub, {})).status).toBe(400);
  },
);

clause("2.6 · required", "inputs stored before the key existed are required (a stored input without `required`)", async () => {
  const created = await e.create(oneInput({ name: "landmark", type: "string", required: false }));
  expect(created.inputs[0].required).toBe(false);
  // An input as stored before `required` existed: no key at all.
  await s.app.db.execute(
    sql`update endpoint_versions set inputs = ${JSON.stringify([{ name: "landmark", type: "string" }])}::jsonb where id = ${created.id}`,
  );
  const read = await e.get(created.id);
  expect(read.inputs).toEqual([{ name: "landmark", type: "string", required: true, default: null }]);
  expect(read.integration.request_schema.required).toEqual(["landmark"]);
  const response = await e.run(created.stub, {});
  expect(response.status).toBe(400);
  expect(await response.json()).toEqual({ detail: "missing required input: landmark: string", error: "missing_inputs" });
});

clause("2.6 · required", "required: false makes an input optional", async () => {
  const created = await e.create(oneInput({ name: "landmark", type: "string", required: false }));
  expect(created.integration.request_schema.required).toEqual([]);
  expect((await e.run(created.stub, {})).status).toBe(200);
});

clause("2.6 · default", "default is null unless given", async () => {
  const created = await e.create(
    withInputs([
      { name: "q", type: "string" },
      { name: "o", type: "string", required: false },
    ]),
  );
  expect(created.inputs.map((i: Rec) => i.default)).toEqual([null, null]);
});

clause("2.6 · default", "a non-null default must match the type: 422 at the input's default otherwise", async () => {
  for (const [type, bad] of [
    ["number", "2020"],
    ["string", 5],
    ["boolean", "yes"],
  ] as const) {
    expect({ type, locs: await locs(s.call("POST", "/v1/design-api", withInputs([{ name: "x", type, default: bad }]))) }).toEqual({
      type,
      locs: [["body", "inputs", 0, "default"]],
    });
  }
});

clause("2.6 · default", "a non-null default makes the input optional even with required: true", async () => {
  const created = await e.create(oneInput({ name: "landmark", type: "string", required: true, default: "Eiffel Tower" }));
  expect(created.inputs[0]).toEqual({ name: "landmark", type: "string", required: false, default: "Eiffel Tower" });
  expect(created.integration.request_schema.required).toEqual([]);
  expect(await e.ranFields(e.run(created.stub, {}))).toEqual(LANDMARK_FIELDS);
});

clause("2.6 · ¶3", "integration.url is the callable URL of that version and versioned_url always the pinned one", async () => {
  const base = `${s.app.url}/v1/user-defined-service/${record.stub}`;
  expect(record.integration.url).toBe(base);
  expect(record.integration.versioned_url).toBe(`${base}/v1`);
  for (const url of [record.integration.url, record.integration.versioned_url]) {
    const response = await fetch(url, {
      method: "POST",
      headers: { "X-API-Key": s.apiKey, "content-type": "application/json" },
      body: JSON.stringify(record.integration.example_request),
    });
    expect(response.status).toBe(200);
  }
});

clause("2.6 · ¶3", "request_schema marks only the required inputs as required and carries the defaults", async () => {
  const schema = record.integration.request_schema;
  expect(schema.required).toEqual(["landmark"]);
  expect(schema.properties.landmark).toMatchObject({ type: "string" });
  expect(schema.properties.city).toMatchObject({ type: "string", default: "Paris" });
  expect(schema.properties.language).toEqual({ type: "string" });
});

clause(
  "2.6 · ¶3",
  "example_request holds every required input plus every optional one with a default, and validates against request_schema",
  async () => {
    const { example_request: example, request_schema: schema } = record.integration;
    expect(Object.keys(example).sort()).toEqual(["city", "landmark"]);
    expect(example.city).toBe("Paris");
    expect(typeof example.landmark).toBe("string");
    expect(validatesAgainst(schema, example)).toEqual([]);
  },
);

clause("2.6 · ¶3", "response_schema describes {response, context, info}, response shaped by output_format", async () => {
  const schema = record.integration.response_schema;
  expect(schema.required).toEqual(["response", "context", "info"]);
  expect(schema.properties.response).toMatchObject({ type: "object", required: ["completed_year", "height_metres", "designer"] });
});

clause(
  "2.6 · ¶3",
  "code holds curl, python and javascript samples calling url with the key from the environment; agent_handoff is short text naming url",
  async () => {
    const { code, url, agent_handoff: handoff } = record.integration;
    for (const sample of [code.curl, code.python, code.javascript]) {
      expect(sample).toContain(url);
      expect(sample).toContain("CRITIQUE_API_KEY");
      expect(sample).not.toContain(s.apiKey);
    }
    expect(handoff).toContain(url);
    expect(handoff.length).toBeLessThan(2_000);
  },
);

clause("2.6 · ¶4", "creation answers are wrapped in a top-level response member: POST /v1/design-api and POST .../versions", async () => {
  const created = await e.ok(s.call("POST", "/v1/design-api", landmarkEndpoint));
  expect(Object.keys(created)).toEqual(["response"]);
  expect(Object.keys(created.response).sort()).toEqual(RECORD_FIELDS);
  const next = await e.ok(s.call("POST", `/v1/design-api/${created.response.id}/versions`));
  expect(Object.keys(next)).toEqual(["response"]);
  expect(next.response.version).toBe(2);
});

clause("2.6 · ¶4", "reads and edits (not creations) answer the record itself, unwrapped", async () => {
  const read = await e.get(record.id);
  expect(read).not.toHaveProperty("response");
  expect(read.id).toBe(record.id);
});
