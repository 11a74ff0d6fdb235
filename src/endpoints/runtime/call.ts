/**
 * One call of a designed or published endpoint: the body checked against
 * the version's inputs (a 400 or 422 before anything runs), then its graph
 * run as one held research run (research/run/hold.ts): the service
 * deadline, the in-flight count and the call's usage, as every search has.
 */
import type { Call } from "../../http/call.ts";
import { holdRun, runOf, type Answered, type RunCall, type RunDeps } from "../../research/run/hold.ts";
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

/**
 * A call of the caller's own endpoint, at the version it names: the version goes on the call's usage record whatever
 * the outcome, and the run's usage is charged before the answer leaves. The user-defined-service routes and the
 * OpenAI-compatible face (model `endpoint:<stub>`) call it.
 */
export async function runOwned(
  deps: RunDeps,
  call: Call,
  stub: string,
  version: { id: number } & Parameters<typeof runnable>[0],
  body: unknown,
  signal: AbortSignal,
): Promise<EndpointRunResult> {
  call.ran({ apiId: version.id });
  const { answer, usage } = await runCall(deps, runnable(version), body, runOf(call, { signal, work: { endpoint: `user:${stub}` } }));
  await call.charge(usage);
  return answer;
}
