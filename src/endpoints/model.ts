/**
 * Designed endpoints on the wire: inputs, the agent graph, the record, and
 * the request bodies. The TypeBox schemas are the contract, the validation
 * and the OpenAPI document at once; rules a schema cannot say live in
 * rules.ts.
 */
import { t, type Static } from "elysia";
import { runInfoSchema } from "../research/model.ts";

export const INPUT_NAME = "^[A-Za-z_][A-Za-z0-9_]*$";
export const INPUT_TYPES = ["string", "number", "boolean"] as const;
export const NODE_TYPES = ["database_agent", "search_agent", "coding_agent", "general_agent", "email_agent"] as const;

export const EndpointInput = t.Object({
  name: t.String({ pattern: INPUT_NAME, maxLength: 64, description: "Field name in the call's body. Not `max_results` (reserved)." }),
  type: t.Union([t.Literal("string"), t.Literal("number"), t.Literal("boolean")]),
  required: t.Optional(
    t.Boolean({ default: true, description: "Defaults to true. An input with a non-null default is optional regardless." }),
  ),
  default: t.Optional(t.Nullable(t.Union([t.String({ maxLength: 2_000 }), t.Number(), t.Boolean()]))),
  description: t.Optional(t.Nullable(t.String({ maxLength: 500 }))),
});
export type EndpointInput = Static<typeof EndpointInput>;

// SPEC 2.7: a node's and an edge's id may be null; the service names them (`node_2`, `edge_1`) before storing.
const GraphId = t.Nullable(t.String({ minLength: 1, maxLength: 64 }));

export const GraphNode = t.Object({
  id: GraphId,
  type: t.Union(
    [
      t.Literal("database_agent"),
      t.Literal("search_agent"),
      t.Literal("coding_agent"),
      t.Literal("general_agent"),
      t.Literal("email_agent"),
    ],
    { description: "search_agent and general_agent run in this service; the others are refused when the deployment cannot run them." },
  ),
  name: t.String({ minLength: 1, maxLength: 200 }),
  system_prompt: t.String({
    maxLength: 20_000,
    description: "What the node does. `{input_name}` placeholders are filled with the call's inputs.",
  }),
  // Checked by the output_format rules (not t.Record: Elysia turns strings sent there into objects).
  output_format: t.Optional(t.Nullable(t.Unknown({ description: "The node's output shape, in output_format's language." }))),
  configuration: t.Optional(t.Nullable(t.Unknown({ description: "Free-form settings of the node (an object)." }))),
});
export type GraphNode = Omit<Static<typeof GraphNode>, "id" | "output_format" | "configuration"> & {
  id: string;
  output_format?: Record<string, unknown> | null;
  configuration?: Record<string, unknown> | null;
};

export const GraphEdge = t.Object({
  id: GraphId,
  source: t.String({ minLength: 1, maxLength: 64 }),
  target: t.String({ minLength: 1, maxLength: 64 }),
});
export type GraphEdge = Omit<Static<typeof GraphEdge>, "id"> & { id: string };

export const Graph = t.Object(
  {
    nodes: t.Array(GraphNode, { minItems: 1, maxItems: 50 }),
    edges: t.Array(GraphEdge, { maxItems: 200 }),
  },
  {
    description:
      "Agent nodes and the edges between them: a directed acyclic graph. Upstream outputs flow to downstream nodes; the nodes without outgoing edges give the response.",
  },
);
export type Graph = { nodes: GraphNode[]; edges: GraphEdge[] };
/** A graph as a body sends it: ids may be null. */
export type GraphInput = {
  nodes: (Omit<GraphNode, "id"> & { id: string | null })[];
  edges: (Omit<GraphEdge, "id"> & { id: string | null })[];
};

/** What a designer proposes from a prompt. */
export interface Design {
  api_name: string;
  inputs: EndpointInput[];
  output_format: Record<string, unknown>;
  graph: Graph;
}

const Prompt = t.String({ minLength: 1, maxLength: 20_000, description: "The research task in words." });
const ApiName = t.String({ minLength: 1, maxLength: 200 });
const Inputs = t.Array(EndpointInput, { maxItems: 50 });
const OutputFormatBody = t.Unknown({
  description: "The response shape, in output_format's language (type names, nested objects, one-item arrays).",
});

export const CreateEndpointBody = t.Object({
  original_prompt: Prompt,
  api_name: t.Optional(t.Nullable(ApiName)),
  inputs: t.Optional(t.Nullable(Inputs)),
  output_format: t.Optional(t.Nullable(OutputFormatBody)),
  graph: t.Optional(t.Nullable(Graph)),
});

export const PatchEndpointBody = t.Object({
  original_prompt: t.Optional(Prompt),
  api_name: t.Optional(ApiName),
  inputs: t.Optional(Inputs),
  output_format: t.Optional(OutputFormatBody),
  graph: t.Optional(Graph),
  version_notes: t.Optional(t.Nullable(t.String({ maxLength: 2_000 }))),
});

export const NewVersionBody = t.Optional(t.Nullable(t.Object({ version_notes: t.Optional(t.Nullable(t.String({ maxLength: 2_000 }))) })));

export const ApiIdParams = t.Object({ api_id: t.Integer({ description: "The id of an endpoint version (an integer)." }) });
export const ListQuery = t.Object({
  // Read by queryBoolean, as FastAPI reads a bool (1/0, true/false, yes/no, on/off); OpenAPI says boolean.
  all_versions: t.Optional(
    t.Union([t.Boolean(), t.String({ maxLength: 10 })], {
      description: "Every version instead of the highest of each endpoint (default false).",
    }),
  ),
});

const JsonSchemaObject = t.Unknown({ description: "A JSON Schema." });
export const IntegrationView = t.Object({
  method: t.Literal("POST"),
  url: t.String({ description: "The callable URL of this version: unversioned when it is live, pinned with /v{n} otherwise." }),
  versioned_url: t.String({ description: "Always pinned to this version." }),
  request_schema: JsonSchemaObject,
  response_schema: JsonSchemaObject,
  example_request: t.Unknown({ description: "A body that validates against request_schema." }),
  code: t.Object({ curl: t.String(), python: t.String(), javascript: t.String() }),
  agent_handoff: t.String(),
});

export const EndpointRecordView = t.Object({
  id: t.Integer({ description: "This version's id (the {api_id} of the routes)." }),
  original_prompt: t.String(),
  api_name: t.String(),
  stub: t.String(),
  inputs: t.Array(EndpointInput),
  output_format: t.Unknown(),
  version: t.Integer(),
  state: t.Union([t.Literal("draft"), t.Literal("released")]),
  frozen_at: t.Nullable(t.String({ format: "date-time" })),
  is_latest: t.Boolean({ description: "This version has the highest number of its lineage." }),
  is_live: t.Boolean(),
  live_version: t.Integer(),
  versions: t.Array(
    t.Object({
      id: t.Integer(),
      version: t.Integer(),
      state: t.Union([t.Literal("draft"), t.Literal("released")]),
      frozen_at: t.Nullable(t.String()),
      is_latest: t.Boolean(),
      is_live: t.Boolean(),
      version_notes: t.Nullable(t.String()),
    }),
  ),
  integration: IntegrationView,
  graph: Graph,
  version_notes: t.Nullable(t.String()),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
});

/** A call's body: the endpoint's own inputs, checked against them by runtime/call-inputs.ts (a schema per endpoint). */
export const RunBody = t.Unknown({
  description:
    "The endpoint's inputs by name (see its integration.request_schema), plus optional include_domains or exclude_domains (lists of domains, one or the other).",
});

export const RunResponse = t.Object({
  response: t.Unknown({ description: "An object matching the endpoint's output_format." }),
  context: t.Array(t.Object({ id: t.Integer(), metadata: t.Object({ title: t.String(), url: t.String(), content: t.String() }) })),
  info: runInfoSchema(
    "token_usage and tokens, model, nodes (per node: id, type, ms, and for a search node its queries, sources and providers), notes.",
  ),
});

/** A call's version path segment: `v{n}`. */
export const VERSION_SEGMENT = /^v(\d{1,6})$/;
