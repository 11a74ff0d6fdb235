/**
 * Designed endpoints on the wire: inputs, the agent graph, the record, and
 * the request bodies. The TypeBox schemas are the contract, the validation
 * and the OpenAPI document at once; rules a schema cannot say live in
 * rules.ts.
 */
import { t, type Static } from "elysia";

export const INPUT_NAME = "^[A-Za-z_][A-Za-z0-9_]*$";
export const INPUT_TYPES = ["string", "number", "boolean"] as const;
export const NODE_TYPES = ["database_agent", "search_agent", "coding_agent", "general_agent", "email_agent"] as const;

export const EndpointInput = t.Object({
  name: t.String({ pattern: INPUT_NAME, maxLength: 64, description: "Field name in the call's body. Not `max_results` (reserved)." }),
  type: t.Union(INPUT_TYPES.map((name) => t.Literal(name))),
  required: t.Optional(t.Boolean({ default: true, description: "Defaults to true. An input with a non-null default is optional regardless." })),
  default: t.Optional(t.Nullable(t.Union([t.String({ maxLength: 2_000 }), t.Number(), t.Boolean()]))),
  description: t.Optional(t.Nullable(t.String({ maxLength: 500 }))),
});
export type EndpointInput = Static<typeof EndpointInput>;

export const GraphNode = t.Object({
  id: t.String({ minLength: 1, maxLength: 64 }),
  type: t.Union(NODE_TYPES.map((name) => t.Literal(name)), { description: "search_agent and general_agent run in this service; the others are refused when the deployment cannot run them." }),
  name: t.String({ minLength: 1, maxLength: 200 }),
  system_prompt: t.String({ maxLength: 20_000, description: "What the node does. `{input_name}` placeholders are filled with the call's inputs." }),
  // Checked by the output_format rules (not t.Record: Elysia turns strings sent there into objects).
  output_format: t.Optional(t.Nullable(t.Unknown({ description: "The node's output shape, in output_format's language." }))),
  configuration: t.Optional(t.Nullable(t.Record(t.String(), t.Unknown()))),
});
export type GraphNode = Omit<Static<typeof GraphNode>, "output_format" | "configuration"> & {
  output_format?: Record<string, unknown> | null;
  configuration?: Record<string, unknown> | null;
};

export const GraphEdge = t.Object({
  id: t.String({ minLength: 1, maxLength: 64 }),
  source: t.String({ minLength: 1, maxLength: 64 }),
  target: t.String({ minLength: 1, maxLength: 64 }),
});
export type GraphEdge = Static<typeof GraphEdge>;

export const Graph = t.Object(
  {
    nodes: t.Array(GraphNode, { minItems: 1, maxItems: 50 }),
    edges: t.Array(GraphEdge, { maxItems: 200 }),
  },
  { description: "Agent nodes and the edges between them: a directed acyclic graph. Upstream outputs flow to downstream nodes; the nodes without outgoing edges give the response." },
);
export type Graph = { nodes: GraphNode[]; edges: GraphEdge[] };

/** What a designer proposes from a prompt. */
export interface Design {
  api_name: string;
  inputs: EndpointInput[];
  output_format: Record<string, unknown>;
  graph: Graph;
}
