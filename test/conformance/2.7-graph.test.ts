/**
 * SPEC 2.7, graph nodes and edges: the node and edge schemas, and the
 * operations the service chose to accept them (the spec does not show
 * which): the `graph` member of POST /v1/design-api and of PATCH
 * /v1/design-api/{api_id}, shown on every record and copied to new versions.
 */
import { expect } from "bun:test";
import { landmarkEndpoint } from "../helpers/endpoints.ts";
import { clause } from "./clause.ts";
import { endpointCalls, type Rec } from "./endpoints-world.ts";
import { useSearchApp } from "./search-app.ts";

const s = useSearchApp();
const e = endpointCalls(s);

const node = (extra: Rec = {}) => ({
  id: "research",
  type: "search_agent",
  name: "Research",
  system_prompt: "Facts about {landmark} in {city}",
  ...extra,
});
const withGraph = (graph: unknown) => ({ ...landmarkEndpoint, graph });
async function refused(body: unknown, method = "POST", path = "/v1/design-api") {
  const response = await s.call(method, path, body);
  expect(response.status).toBe(422);
  return ((await response.json()) as { detail: { loc: unknown[]; msg: string; type: string }[] }).detail;
}

const GRAPH = {
  nodes: [
    {
      id: "tower",
      type: "search_agent",
      name: "Tower",
      system_prompt: "When was {landmark} completed?",
      output_format: { completed_year: "integer" },
      configuration: { depth: 2, providers: ["searxng"] },
    },
    {
      id: "designer",
      type: "search_agent",
      name: "Designer",
      system_prompt: "Who designed {landmark}?",
      output_format: { designer: "string" },
      configuration: {},
    },
    {
      id: "combine",
      type: "general_agent",
      name: "Combine",
      system_prompt: "Combine the findings",
      output_format: { completed_year: "integer", height_metres: "number", designer: "string" },
    },
  ],
  edges: [
    { id: "e1", source: "tower", target: "combine" },
    { id: "e2", source: "designer", target: "combine" },
  ],
};

clause(
  "2.7 · ¶1",
  "a graph of nodes {id, type, name, system_prompt, output_format, configuration} and edges {id, source, target} is kept as sent",
  async () => {
    const created = await e.create(withGraph(GRAPH));
    expect(created.graph).toEqual(GRAPH);
    expect((await e.get(created.id)).graph).toEqual(GRAPH);
  },
);

clause("2.7 · ¶1", "node and edge ids, names and system prompts are strings on the record", async () => {
  const { graph } = await e.create(withGraph(GRAPH));
  for (const n of graph.nodes) for (const field of ["id", "type", "name", "system_prompt"]) expect(typeof n[field]).toBe("string");
  for (const edge of graph.edges) for (const field of ["id", "source", "target"]) expect(typeof edge[field]).toBe("string");
});

clause(
  "2.7 · ¶1",
  "type is one of database_agent, search_agent, coding_agent, general_agent, email_agent: another name is a 422 literal_error",
  async () => {
    const detail = await refused(withGraph({ nodes: [node({ type: "browser_agent" })], edges: [] }));
    expect(detail).toEqual([
      {
        loc: ["body", "graph", "nodes", 0, "type"],
        msg: "Input should be 'database_agent', 'search_agent', 'coding_agent', 'general_agent' or 'email_agent'",
        type: "literal_error",
      },
    ]);
  },
);

clause(
  "2.7 · ¶1",
  "search_agent and general_agent run here; database_agent, coding_agent and email_agent are refused when designed (the service's choice: a 422 naming the node)",
  async () => {
    for (const type of ["database_agent", "coding_agent", "email_agent"]) {
      const detail = await refused(withGraph({ nodes: [node({ id: "n1", type })], edges: [] }));
      expect(detail).toEqual([
        {
          loc: ["body", "graph", "nodes", 0, "type"],
          msg: `node "n1" is a ${type}, which this deployment cannot run (it runs search_agent and general_agent)`,
          type: "value_error",
        },
      ]);
    }
  },
);

clause("2.7 · ¶1", "name has a minimum length of 1: an empty name is a 422 at the node's name", async () => {
  const detail = await refused(withGraph({ nodes: [node({ name: "" })], edges: [] }));
  expect(detail.map((d) => d.loc)).toEqual([["body", "graph", "nodes", 0, "name"]]);
  const one = await e.create(withGraph({ nodes: [node({ name: "R" })], edges: [] }));
  expect(one.graph.nodes[0].name).toBe("R");
});

clause("2.7 · ¶1", "system_prompt is a string: another type is a 422", async () => {
  const detail = await refused(withGraph({ nodes: [node({ system_prompt: 42 })], edges: [] }));
  expect(detail.map((d) => d.loc)).toEqual([["body", "graph", "nodes", 0, "system_prompt"]]);
});

clause("2.7 · ¶1", "a node's output_format is an object in output_format's notation: a bad type name is a 422 inside it", async () => {
  const detail = await refused(withGraph({ nodes: [node({ output_format: { designer: "text" } })], edges: [] }));
  expect(detail.map((d) => d.loc)).toContainEqual(["body", "graph", "nodes", 0, "output_format", "designer"]);
});

clause(
  "2.7 · ¶1",
  "configuration internals (not shown): any object is kept as given; a value that is not an object is a 422 dict_type",
  async () => {
    const configuration = { depth: 3, nested: { flag: true }, list: [1, "two"] };
    const created = await e.create(withGraph({ nodes: [node({ configuration })], edges: [] }));
    expect(created.graph.nodes[0].configuration).toEqual(configuration);
    for (const bad of ["fast", 3, [1, 2]]) {
      expect(await refused(withGraph({ nodes: [node({ configuration: bad })], edges: [] }))).toEqual([
        { loc: ["body", "graph", "nodes", 0, "configuration"], msg: "configuration must be an object", type: "dict_type" },
      ]);
    }
  },
);

clause("2.7 · ¶1", "edges: source and target name nodes of the graph, and the graph is acyclic (422 at the edge otherwise)", async () => {
  const dangling = await refused(withGraph({ nodes: [node({ id: "a" })], edges: [{ id: "e1", source: "a", target: "nowhere" }] }));
  expect(dangling.map((d) => d.loc)).toEqual([["body", "graph", "edges", 0, "target"]]);
  const cycle = await refused(
    withGraph({
      nodes: [node({ id: "a" }), node({ id: "b", type: "general_agent", system_prompt: "Combine" })],
      edges: [
        { id: "e1", source: "a", target: "b" },
        { id: "e2", source: "b", target: "a" },
      ],
    }),
  );
  expect(cycle.map((d) => d.loc)).toEqual([["body", "graph", "edges"]]);
  const missingSource = await refused(withGraph({ nodes: [node({ id: "a" })], edges: [{ id: "e1", target: "a" }] }));
  expect(missingSource.map((d) => d.loc)).toContainEqual(["body", "graph", "edges", 0, "source"]);
});

clause(
  "2.7 · ¶1",
  "the operations that accept these (not shown): PATCH /v1/design-api/{api_id} replaces a draft's graph; a released version refuses it with 409",
  async () => {
    const created = await e.create();
    const replaced = { nodes: [node({ id: "only", system_prompt: "Just {landmark}" })], edges: [] };
    const patched = await e.patch(created.id, { graph: replaced });
    expect(patched.graph.nodes.map((n: Rec) => [n.id, n.system_prompt])).toEqual([["only", "Just {landmark}"]]);
    expect((await e.get(created.id)).graph.nodes[0].id).toBe("only");
    await e.release(created.id);
    const refusedEdit = await s.call("PATCH", `/v1/design-api/${created.id}`, { graph: GRAPH });
    expect(refusedEdit.status).toBe(409);
    expect((await e.get(created.id)).graph.nodes[0].id).toBe("only");
  },
);

clause(
  "2.7 · ¶1",
  "the operations that accept these (not shown): a graph sent to PATCH is checked like creation (422 for an unknown type)",
  async () => {
    const created = await e.create();
    const detail = await refused(
      { graph: { nodes: [node({ type: "spreadsheet_agent" })], edges: [] } },
      "PATCH",
      `/v1/design-api/${created.id}`,
    );
    expect(detail.map((d) => d.loc)).toEqual([["body", "graph", "nodes", 0, "type"]]);
    expect((await e.get(created.id)).graph).toEqual(created.graph);
  },
);

clause("2.7 · ¶1", "a new version copies the graph; without a graph in the body the service designs one (a search_agent)", async () => {
  const created = await e.create(withGraph(GRAPH));
  expect((await e.newVersion(created.id)).graph).toEqual(GRAPH);
  const designed = await e.create({ original_prompt: "Given a city, find its mayor" });
  expect(designed.graph.nodes.length).toBeGreaterThan(0);
  expect(designed.graph.nodes.some((n: Rec) => n.type === "search_agent")).toBe(true);
});

clause("2.7 · ¶1", "the graph is what runs: a call reports every node it ran in info.nodes", async () => {
  const created = await e.create(withGraph(GRAPH));
  const body = await e.ok(e.run(created.stub));
  expect(body.info.nodes.map((n: Rec) => [n.id, n.type]).sort()).toEqual([
    ["combine", "general_agent"],
    ["designer", "search_agent"],
    ["tower", "search_agent"],
  ]);
  expect(body.response.completed_year).toBe(1889);
});

clause("2.7 · ¶1", "a node's id and an edge's id are a string or null: null is accepted and the record shows a string id", async () => {
  const created = await e.create(
    withGraph({
      nodes: [node({ id: "a" }), { id: null, type: "general_agent", name: "Combine", system_prompt: "Combine the findings" }],
      edges: [],
    }),
  );
  expect(created.graph.nodes.map((n: Rec) => typeof n.id)).toEqual(["string", "string"]);
  const edged = await e.create(
    withGraph({
      nodes: [node({ id: "a" }), node({ id: "b", type: "general_agent", system_prompt: "Combine" })],
      edges: [{ id: null, source: "a", target: "b" }],
    }),
  );
  expect(typeof edged.graph.edges[0].id).toBe("string");
  expect(edged.graph.edges[0]).toMatchObject({ source: "a", target: "b" });
});
