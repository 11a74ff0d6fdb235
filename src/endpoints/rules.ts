/**
 * The rules of a designed endpoint's content, checked at creation and on
 * every PATCH: inputs (names, types, defaults, the reserved max_results),
 * the output format, and the graph (a DAG of known, runnable nodes).
 * Problems are FastAPI-style 422 issues at their paths.
 */
import { InvalidInput, type ValidationIssue } from "../errors.ts";
import { checkOutputFormat, type OutputShape } from "../research/output-format.ts";
import { INPUT_NAME, type EndpointInput, type Graph, type GraphInput } from "./model.ts";

export const MAX_RESULTS = "max_results";
export const DEFAULT_MAX_RESULTS = 10;
/** Node types this service runs; the others are refused until a deployment can run them. */
export const RUNNABLE_NODES = new Set(["search_agent", "general_agent"]);

const NAME = new RegExp(INPUT_NAME);

/** An input with a non-null default is optional whatever `required` says; a missing `required` means required. */
export function isRequired(input: EndpointInput): boolean {
  if (input.default !== null && input.default !== undefined) return false;
  return input.required ?? true;
}

function matchesType(value: unknown, type: EndpointInput["type"]): boolean {
  if (type === "string") return typeof value === "string";
  if (type === "number") return typeof value === "number" && Number.isFinite(value);
  return typeof value === "boolean";
}

export function checkInputs(inputs: EndpointInput[], loc: (string | number)[], options: { allowMaxResults: boolean }): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  inputs.forEach((input, i) => {
    const at = [...loc, i];
    if (!NAME.test(input.name))
      issues.push({ loc: [...at, "name"], msg: `String should match pattern '${INPUT_NAME}'`, type: "string_pattern_mismatch" });
    if (input.name === MAX_RESULTS && !options.allowMaxResults) {
      issues.push({
        loc: [...at, "name"],
        msg: "max_results is reserved: it is added automatically when the output has a list",
        type: "value_error",
      });
    }
    if (seen.has(input.name)) issues.push({ loc: [...at, "name"], msg: `input "${input.name}" is defined twice`, type: "value_error" });
    seen.add(input.name);
    if (input.default !== null && input.default !== undefined && !matchesType(input.default, input.type)) {
      issues.push({ loc: [...at, "default"], msg: `default must be a ${input.type}, like the input`, type: "value_error" });
    }
  });
  return issues;
}

export function hasList(shape: unknown): boolean {
  if (shape === "array" || Array.isArray(shape)) return true;
  if (shape && typeof shape === "object") return Object.values(shape).some(hasList);
  return false;
}

/**
 * The inputs as stored: the owner's, plus max_results when the output has a
 * list anywhere (kept as it was if already there), minus it when not.
 */
export function withMaxResults(inputs: EndpointInput[], outputFormat: Record<string, unknown>): EndpointInput[] {
  const own = inputs.filter((i) => i.name !== MAX_RESULTS);
  if (!hasList(outputFormat)) return own;
  const existing = inputs.find((i) => i.name === MAX_RESULTS);
  return [
    ...own,
    existing ?? {
      name: MAX_RESULTS,
      type: "number",
      required: false,
      default: DEFAULT_MAX_RESULTS,
      description: "The most items any top-level list of the response holds.",
    },
  ];
}

/** Names the nodes and edges sent without an id (SPEC 2.7 allows null): `node_<n>` / `edge_<n>` by position, skipping names already taken. */
export function namedGraph(graph: GraphInput): Graph {
  const name = (prefix: string, items: { id: string | null }[]) => {
    const taken = new Set(items.map((item) => item.id));
    return (item: { id: string | null }, i: number): string => {
      if (item.id !== null) return item.id;
      let n = i + 1;
      while (taken.has(`${prefix}_${n}`)) n++;
      taken.add(`${prefix}_${n}`);
      return `${prefix}_${n}`;
    };
  };
  const nodeId = name("node", graph.nodes);
  const edgeId = name("edge", graph.edges);
  return {
    nodes: graph.nodes.map((node, i) => ({ ...node, id: nodeId(node, i) })),
    edges: graph.edges.map((edge, i) => ({ ...edge, id: edgeId(edge, i) })),
  };
}

export function checkGraph(graph: Graph, loc: (string | number)[], inputNames: Set<string>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const ids = new Map<string, number>();
  graph.nodes.forEach((node, i) => {
    const at = [...loc, "nodes", i];
    if (ids.has(node.id)) issues.push({ loc: [...at, "id"], msg: `node id "${node.id}" is used twice`, type: "value_error" });
    ids.set(node.id, i);
    if (!node.name.trim()) issues.push({ loc: [...at, "name"], msg: "a node needs a name", type: "value_error" });
    if (!RUNNABLE_NODES.has(node.type)) {
      issues.push({
        loc: [...at, "type"],
        msg: `node "${node.id}" is a ${node.type}, which this deployment cannot run (it runs ${[...RUNNABLE_NODES].join(" and ")})`,
        type: "value_error",
      });
    }
    if (node.output_format !== undefined && node.output_format !== null)
      issues.push(...checkOutputFormat(node.output_format, [...at, "output_format"]));
    const configuration: unknown = node.configuration;
    if (configuration !== undefined && configuration !== null && (typeof configuration !== "object" || Array.isArray(configuration))) {
      issues.push({ loc: [...at, "configuration"], msg: "configuration must be an object", type: "dict_type" });
    }
    for (const match of node.system_prompt.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
      if (!inputNames.has(match[1]!))
        issues.push({ loc: [...at, "system_prompt"], msg: `placeholder {${match[1]}} names no input`, type: "value_error" });
    }
  });
  const edgeIds = new Set<string>();
  const next = new Map<string, string[]>([...ids.keys()].map((id) => [id, []]));
  graph.edges.forEach((edge, i) => {
    const at = [...loc, "edges", i];
    if (edgeIds.has(edge.id)) issues.push({ loc: [...at, "id"], msg: `edge id "${edge.id}" is used twice`, type: "value_error" });
    edgeIds.add(edge.id);
    for (const end of ["source", "target"] as const) {
      if (!ids.has(edge[end])) issues.push({ loc: [...at, end], msg: `no node has the id "${edge[end]}"`, type: "value_error" });
    }
    if (edge.source === edge.target)
      issues.push({ loc: [...at, "target"], msg: "an edge cannot point at its own source", type: "value_error" });
    next.get(edge.source)?.push(edge.target);
  });
  if (issues.length === 0 && topologicalOrder(graph) === null)
    issues.push({ loc: [...loc, "edges"], msg: "the graph has a cycle: it must be a directed acyclic graph", type: "value_error" });
  return issues;
}

/** Node ids in an order where every node comes after its sources, or null when there is a cycle. */
export function topologicalOrder(graph: Graph): string[] | null {
  const indegree = new Map(graph.nodes.map((n) => [n.id, 0]));
  for (const edge of graph.edges) indegree.set(edge.target, (indegree.get(edge.target) ?? 0) + 1);
  const ready = graph.nodes.filter((n) => indegree.get(n.id) === 0).map((n) => n.id);
  const order: string[] = [];
  while (ready.length) {
    const id = ready.shift()!;
    order.push(id);
    for (const edge of graph.edges) {
      if (edge.source !== id) continue;
      const left = indegree.get(edge.target)! - 1;
      indegree.set(edge.target, left);
      if (left === 0) ready.push(edge.target);
    }
  }
  return order.length === graph.nodes.length ? order : null;
}

export interface EndpointContent {
  original_prompt: string;
  api_name: string;
  inputs: EndpointInput[];
  output_format: Record<string, unknown>;
  graph: Graph;
  version_notes: string | null;
}

/** Checks a whole endpoint's content (after a PATCH is merged in) and returns it as stored. */
export function checkContent(content: EndpointContent, options: { allowMaxResults: boolean }): EndpointContent {
  const issues: ValidationIssue[] = [];
  if (!content.original_prompt.trim())
    issues.push({ loc: ["body", "original_prompt"], msg: "String should have at least 1 character", type: "string_too_short" });
  if (!content.api_name.trim())
    issues.push({ loc: ["body", "api_name"], msg: "String should have at least 1 character", type: "string_too_short" });
  issues.push(...checkInputs(content.inputs, ["body", "inputs"], options));
  const formatIssues = checkOutputFormat(content.output_format, ["body", "output_format"]);
  issues.push(...formatIssues);
  const inputs = formatIssues.length ? content.inputs : withMaxResults(content.inputs, content.output_format);
  issues.push(...checkGraph(content.graph, ["body", "graph"], new Set(inputs.map((i) => i.name))));
  if (issues.length) throw new InvalidInput(issues);
  return { ...content, api_name: content.api_name.trim(), inputs };
}

export type OutputFormat = { [field: string]: OutputShape };
