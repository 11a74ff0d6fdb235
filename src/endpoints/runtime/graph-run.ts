/**
 * Runs an endpoint version's graph for one call. Nodes run in waves, in
 * dependency order (independent nodes together): a search_agent is a
 * research run with its prompt (inputs filled in) and its output format; a
 * general_agent transforms its upstream outputs (one structured LLM call, or
 * by matching fields when no model is configured). The nodes without
 * outgoing edges give the response, shaped to the endpoint's output format,
 * with every top-level list cut to max_results.
 */
import { ServiceError } from "../../errors.ts";
import { runResearch, type EngineDeps } from "../../research/engine.ts";
import type { ProviderReport } from "../../research/fanout.ts";
import { modelFailureNote } from "../../research/llm/failure.ts";
import { addUsage, NO_USAGE } from "../../research/llm/port.ts";
import { conforms, toJsonSchema, type JsonSchema } from "../../research/output-format.ts";
import { collect } from "../../research/run/drain.ts";
import { truncateLists } from "../../research/run/max-results.ts";
import { tokenReport, usageOf, type ContextEntry, type TokenReport } from "../../research/types.ts";
import type { EndpointInput, Graph, GraphNode } from "../model.ts";
import { RUNNABLE_NODES, topologicalOrder, type OutputFormat } from "../rules.ts";
import type { ResolvedCall } from "./call-inputs.ts";

export interface RunnableEndpoint {
  apiName: string;
  inputs: EndpointInput[];
  outputFormat: OutputFormat;
  graph: Graph;
}

export interface NodeReport {
  id: string;
  type: string;
  ms: number;
  queries?: string[];
  sources?: number;
  /** A search node's providers and how each fared (the search answer's info.providers). */
  providers?: ProviderReport[];
}

export interface EndpointRunResult {
  response: Record<string, unknown>;
  context: ContextEntry[];
  info: TokenReport & { model: string; nodes: NodeReport[]; notes: string[] };
}

function fill(template: string, values: ResolvedCall["values"]): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => {
    if (!(name in values)) return whole;
    const value = values[name];
    return value === null ? `(${name.replace(/_/g, " ")} not provided)` : String(value);
  });
}

function inputsBlock(call: ResolvedCall): string {
  const lines = Object.entries(call.values).map(([name, value]) => `- ${name}: ${value === null ? "not provided" : JSON.stringify(value)}`);
  const missing = call.notProvided.length
    ? `\nThe caller did not provide: ${call.notProvided.join(", ")}. Do not assume values for them.`
    : "";
  const limit = call.maxResults ? `\nReturn at most ${call.maxResults} items in each list.` : "";
  return `Inputs:\n${lines.join("\n")}${missing}${limit}`;
}

/** The fields of `shape` taken from upstream objects that carry them with the right type; null otherwise. */
export function matchFields(shape: OutputFormat, upstream: Record<string, unknown>[]): Record<string, unknown> {
  const schema = toJsonSchema(shape);
  const properties = schema.properties as Record<string, JsonSchema>;
  const out: Record<string, unknown> = {};
  for (const field of Object.keys(shape)) {
    const found = upstream.find((o) => field in o && conforms(properties[field]!, o[field]));
    out[field] = found ? found[field] : null;
  }
  return out;
}

export async function runEndpoint(
  engine: EngineDeps,
  endpoint: RunnableEndpoint,
  call: ResolvedCall,
  signal: AbortSignal,
): Promise<EndpointRunResult> {
  const order = topologicalOrder(endpoint.graph);
  if (!order) throw new ServiceError("node_not_runnable", "the endpoint's graph has a cycle and cannot run");
  for (const node of endpoint.graph.nodes) {
    if (!RUNNABLE_NODES.has(node.type))
      throw new ServiceError("node_not_runnable", `node "${node.id}" (${node.name}) is a ${node.type}, which this deployment cannot run`);
  }
  const sinks = new Set(endpoint.graph.nodes.map((n) => n.id).filter((id) => !endpoint.graph.edges.some((e) => e.source === id)));
  const byId = new Map(endpoint.graph.nodes.map((n) => [n.id, n]));
  const outputs = new Map<string, Record<string, unknown>>();
  const contexts: ContextEntry[][] = [];
  const reports: NodeReport[] = [];
  const notes: string[] = [];
  let usage = NO_USAGE;

  const formatOf = (node: GraphNode): OutputFormat =>
    (node.output_format as OutputFormat | null | undefined) ?? (sinks.has(node.id) ? endpoint.outputFormat : { result: "string" });

  const runNode = async (node: GraphNode): Promise<void> => {
    const started = performance.now();
    const upstream = endpoint.graph.edges.filter((e) => e.target === node.id).map((e) => outputs.get(e.source)!);
    const shape = formatOf(node);
    const upstreamText = upstream.length ? `\n\nFindings so far:\n${upstream.map((o) => JSON.stringify(o)).join("\n")}` : "";
    const task = `${fill(node.system_prompt, call.values)}\n\n${inputsBlock(call)}${upstreamText}`;
    if (node.type === "search_agent") {
      const events = runResearch(
        engine,
        {
          request: {
            prompt: task,
            image: null,
            whitelist: call.whitelist,
            blacklist: call.blacklist,
            outputFormat: { shape, schema: toJsonSchema(shape) },
            ...(call.maxResults ? { maxResults: call.maxResults } : {}),
          },
          image: null,
        },
        signal,
      );
      const result = await collect(events);
      outputs.set(node.id, typeof result.response === "string" ? { result: result.response } : result.response);
      contexts.push(result.context);
      usage = addUsage(usage, usageOf(result.info));
      reports.push({
        id: node.id,
        type: node.type,
        ms: Math.round(performance.now() - started),
        queries: result.info.queries,
        sources: result.context.length,
        providers: result.info.providers,
      });
      return;
    }
    // general_agent: combine what the upstream nodes found.
    let value: Record<string, unknown> | null = null;
    if (engine.llm && upstream.length) {
      try {
        const schema = toJsonSchema(shape);
        const answer = await engine.llm.structured(
          {
            system:
              "You combine research findings into a JSON object that follows the schema. Use only the findings; null where they do not say.",
            prompt: task,
            schema,
          },
          signal,
        );
        usage = addUsage(usage, answer.usage);
        if (conforms(schema, answer.value)) value = answer.value as Record<string, unknown>;
        else notes.push(`node "${node.id}": the model's answer did not match its format; fields were matched instead`);
      } catch (error) {
        signal.throwIfAborted();
        notes.push(
          `node "${node.id}": the model failed (${modelFailureNote(error, engine.log, `graph node ${node.id}`)}); fields were matched instead`,
        );
      }
    }
    outputs.set(node.id, value ?? matchFields(shape, upstream));
    reports.push({ id: node.id, type: node.type, ms: Math.round(performance.now() - started) });
  };

  const done = new Set<string>();
  while (done.size < order.length) {
    const wave = order.filter(
      (id) => !done.has(id) && endpoint.graph.edges.filter((e) => e.target === id).every((e) => done.has(e.source)),
    );
    await Promise.all(wave.map((id) => runNode(byId.get(id)!)));
    for (const id of wave) done.add(id);
  }

  const merged = Object.assign({}, ...[...sinks].map((id) => outputs.get(id)));
  const response = truncateLists(matchFields(endpoint.outputFormat, [merged]), call.maxResults);
  return {
    response,
    context: mergeContexts(contexts),
    info: { ...tokenReport(usage), model: engine.llm?.model ?? "extractive", nodes: reports, notes },
  };
}

/** Context entries of several runs as one list: one entry per URL, numbered from 1. */
function mergeContexts(lists: ContextEntry[][]): ContextEntry[] {
  const seen = new Set<string>();
  const out: ContextEntry[] = [];
  for (const entry of lists.flat()) {
    if (seen.has(entry.metadata.url)) continue;
    seen.add(entry.metadata.url);
    out.push({ id: out.length + 1, metadata: entry.metadata });
  }
  return out;
}
