/**
 * What every face does around the engine: check the body, hold the run to
 * the service deadline, count it as in flight (free-tier throttling at peak),
 * and turn a passed deadline into a 504 with whatever was gathered dropped.
 */
import { ServiceError } from "../errors.ts";
import { waitWords } from "../http/wait-words.ts";
import type { InFlightGauge } from "../limits/peak-load.ts";
import { prepareRun, runResearch, type EngineDeps, type RunInfo } from "../research/engine.ts";
import { parseSearchBody, type ResearchRequest, type SearchBody } from "../research/request.ts";
import type { ContextEntry, ResearchEvent } from "../research/types.ts";

export interface SearchFaceDeps {
  engine: EngineDeps;
  load: InFlightGauge;
  deadlineMs: number;
}

export type RunEvents = AsyncGenerator<ResearchEvent, RunInfo>;

export function checkSearchBody(deps: SearchFaceDeps, body: SearchBody): ResearchRequest {
  return parseSearchBody(body, { imageMaxBytes: deps.engine.settings.imageMaxBytes });
}

function deadlineError(deps: SearchFaceDeps): ServiceError {
  return new ServiceError("deadline_exceeded", `the search did not finish within ${waitWords(Math.round(deps.deadlineMs / 1000))}`);
}

/** The engine for one call: its log lines (a provider's own words among them) carry the call's request id. */
export function engineFor(deps: SearchFaceDeps, requestId: string): EngineDeps {
  return { ...deps.engine, log: deps.engine.log.child({ request_id: requestId }) };
}

/**
 * Starts a run. Preparation (the image) happens before the first event, so
 * its 422 can still be a status; the events then stream. Failures surface
 * as ServiceErrors (504 on the deadline) from `events`.
 */
export async function startRun(deps: SearchFaceDeps, request: ResearchRequest, callerSignal: AbortSignal, requestId: string): Promise<RunEvents> {
  const deadline = AbortSignal.timeout(deps.deadlineMs);
  const signal = AbortSignal.any([callerSignal, deadline]);
  const engine = engineFor(deps, requestId);
  const leave = deps.load.enter();
  let prepared;
  try {
    prepared = await prepareRun(engine, request, signal);
  } catch (error) {
    leave();
    if (deadline.aborted) throw deadlineError(deps);
    throw error;
  }
  const inner = runResearch(engine, prepared, signal);
  return (async function* () {
    try {
      return yield* inner;
    } catch (error) {
      if (deadline.aborted) throw deadlineError(deps);
      if (callerSignal.aborted) throw new ServiceError("bad_request", "the caller went away");
      throw error;
    } finally {
      leave();
    }
  })();
}

/** Drains a run into Critique's JSON body. */
export async function collect(events: RunEvents): Promise<{ response: string | Record<string, unknown>; context: ContextEntry[]; info: RunInfo }> {
  let text = "";
  let object: Record<string, unknown> | null = null;
  let context: ContextEntry[] = [];
  for (;;) {
    const next = await events.next();
    if (next.done) return { response: object ?? text, context, info: next.value };
    const event = next.value;
    if (event.type === "context") context = event.content;
    else if (event.type === "response") {
      if (typeof event.content === "string") text += event.content;
      else object = event.content;
    }
  }
}
