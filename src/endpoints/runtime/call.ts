/**
 * One call of a designed or published endpoint: the body checked against
 * the version's inputs (a 400 or 422 before anything runs), then its graph
 * run as one held research run (research/run/hold.ts): the service
 * deadline, the in-flight count and the call's usage, as every search has.
 */
import { holdRun, type Answered, type RunCall, type RunDeps } from "../../research/run/hold.ts";
import type { EndpointInput, Graph } from "../model.ts";
import type { OutputFormat } from "../rules.ts";
import { resolveCall } from "./call-inputs.ts";
import { runEndpoint, type EndpointRunResult, type RunnableEndpoint } from "./graph-run.ts";

/** A stored version or published snapshot, as the runtime reads it (its JSON columns typed). */
export function runnable(row: {
  apiName: string;
  inputs: unknown[];
  outputFormat: Record<string, unknown>;
  graph: Record<string, unknown>;
}): RunnableEndpoint {
  return {
    apiName: row.apiName,
    inputs: row.inputs as EndpointInput[],
    outputFormat: row.outputFormat as OutputFormat,
    graph: row.graph as unknown as Graph,
  };
}

/** Runs one call to the search response's shape, `{response, context, info}`, handed back with its usage. */
export async function runCall(
  deps: RunDeps,
  endpoint: RunnableEndpoint,
  body: unknown,
  call: RunCall,
): Promise<Answered<EndpointRunResult>> {
  const inputs = resolveCall(endpoint.inputs, body);
  return holdRun(deps, call, "endpoint", (engine, signal) => runEndpoint(engine, endpoint, inputs, signal));
}
