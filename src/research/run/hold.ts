/**
 * The one wrapper around a research run, for every caller: the JSON answer,
 * the SSE and WebSocket streams, and designed and published endpoint calls.
 * It admits the run through this instance's fair queue (queue.ts), holds it
 * to the service deadline (a 504, with whatever was gathered dropped),
 * counts it as in flight (at peak, free buckets refill more slowly: spec
 * 8.3), gives the engine the call's request-id logger, says why a run its
 * caller stopped ended, and ends every run it holds with exactly one usage,
 * stamped by the injected clock: handed back with the answer of a run
 * answered in one piece, told to the stream of one that streams. No HTTP
 * here: a face passes its caller's account, AbortSignal and request id
 * (runOf, from the route's Call). A run whose account is suspended or
 * banned meanwhile ends with that 403.
 *
 * The deadline counts from when the run asks for its slot, so time spent
 * waiting is part of it: a caller is never held longer than the deadline,
 * and a run whose deadline passes while it waits ends as a 504 without
 * running (the queue refuses, 503 queue_full, a run it expects not to finish
 * in time, before that). A caller that goes away while waiting leaves the queue at once.
 * The in-flight count includes waiting runs: they are the instance's load.
 */
import type { Clock } from "../../clock.ts";
import { ServiceError } from "../../errors.ts";
import type { Usage } from "../../call-usage.ts";
import type { CallOrigin } from "../../caller.ts";
import type { Call } from "../../http/call.ts";
import { metrics } from "../../observe/metrics.ts";
import { NO_SPAN, type TraceSpan } from "../../observe/trace.ts";
import { waitWords } from "../../wait-words.ts";
import { prepareRun, runResearch, type EngineDeps } from "../engine.ts";
import { parseSearchBody, type ResearchRequest, type SearchBody } from "../request.ts";
import type { ResearchEvent, TokenReport } from "../types.ts";
import { collect, type RunEvents, type SearchAnswer } from "./drain.ts";
import { faceOutcome } from "./outcome.ts";
import type { RunQueue, RunSlot } from "./queue.ts";

/** Runs in flight in this process (limits/peak-load.ts): enter() counts one in; the function it returns counts it out. */
export interface LoadGauge {
  enter(): () => void;
}

/**
 * Who ends an account's runs when it is suspended or banned mid-run
 * (accounts/standing-watch.ts): track() registers a run, `stop` is given the
 * 403 it ends with, and the returned function unregisters it.
 */
export interface StandingWatcher {
  track(accountId: string, stop: (refusal: ServiceError) => void, keyId?: string | null): () => void;
}

/**
 * What a run works on, as limit-evasion detection (src/abuse/) fingerprints
 * it: a search's prompt and the fields of its output_format, or the designed
 * or published endpoint called.
 */
export type RunWork = { prompt: string; fields: readonly string[] } | { endpoint: string };

export interface RunDeps {
  engine: EngineDeps;
  load: LoadGauge;
  queue: RunQueue;
  deadlineMs: number;
  clock: Clock;
  /** Absent in unit tests: runs then end only by deadline, failure or their caller. */
  standing?: StandingWatcher;
  /**
   * Hears every run once, as it asks for its slot, with who called from where and its work. It must return
   * at once and never throw: limit-evasion detection does its counting off the call's path.
   */
  watch?: (origin: CallOrigin, work: RunWork | null) => void;
}

/**
 * One caller's run: its account (its lane in the queue), its request id (on
 * log lines and the usage record), its signal (the caller going away), and
 * who hears how long it waited for its slot (a face's request log line).
 */
export interface RunCall {
  account: string;
  /** The key the call was made with (null for a dashboard session): revoking it stops the run. */
  key?: string | null;
  requestId: string;
  /** The span the run's own spans go under (its request's); absent: untraced. */
  span?: TraceSpan;
  signal: AbortSignal;
  admitted?: (slot: Pick<RunSlot, "waitedMs" | "ahead">) => void;
  /** Who called from where, for RunDeps.watch; a run without one is not watched. */
  origin?: CallOrigin;
  /** An endpoint call's work (a search's is its request). */
  work?: RunWork;
  /**
   * Told the run's usage once, when it ends, however it ends: a stream's, whose run outlives its request
   * (Call.streams). A run answered in one piece hands its usage back with the answer instead.
   */
  ended?: (usage: Usage) => void;
}

/** An answer and what it used, as a run answered in one piece hands them back: the route charges its call with the usage. */
export interface Answered<T> {
  answer: T;
  usage: Usage;
}

/**
 * The run of an authenticated call (http/call.ts). Only a route documented
 * billable may start one: a research run costs tokens, and its route must
 * hand them to the call.
 */
export function runOf(call: Call, options: { signal: AbortSignal; work?: RunWork; ended?: (usage: Usage) => void }): RunCall {
  call.mustBeBillable("start a research run");
  return {
    account: call.caller.accountId,
    key: call.caller.keyId,
    origin: call.origin,
    requestId: call.requestId,
    span: call.span,
    admitted: (slot) => call.waited(slot),
    ...options,
  };
}

/** The deadline's words: "the search did not finish within …", "the endpoint did not finish within …". */
export type RunSubject = "search" | "endpoint";

export function checkSearchBody(deps: RunDeps, body: SearchBody): ResearchRequest {
  return parseSearchBody(body, { imageMaxBytes: deps.engine.settings.imageMaxBytes });
}

/**
 * The engine for one call: its log lines (a provider's own words among them)
 * carry the call's request id, and its trace id when it has one (a traced
 * request, or a caller's `traceparent`), so a run's warnings join its
 * request's line and its spans; its spans go under `span` (the run's).
 */
export function engineFor(deps: RunDeps, requestId: string, span: TraceSpan = NO_SPAN): EngineDeps {
  const traceId = span.traceId;
  const log = deps.engine.log.child(traceId ? { request_id: requestId, trace_id: traceId } : { request_id: requestId });
  return { ...deps.engine, log, span };
}

/**
 * How a run ended, as runs_finished_total counts it (and its span says):
 * answered, past the deadline, stopped by its caller (or a suspension of
 * its account), or failed. `refused` is only a span's: a run the queue
 * refused, or whose deadline passed while it waited, never started.
 */
export type RunOutcome = "ok" | "deadline" | "error" | "canceled" | "refused";

/**
 * Starts a search. Preparation (an image URL's fetch) happens before the
 * first event, so its 422 can still be a status; the events then stream.
 * Read them to the end (drain or collect): failures surface there, as
 * ServiceErrors (504 past the deadline), and the run's end tells its usage
 * to `call.ended`.
 */
export async function startSearch(deps: RunDeps, request: ResearchRequest, call: RunCall): Promise<RunEvents> {
  return (await searchRun(deps, request, call)).events;
}

/**
 * A search answered in one piece: its events gathered into `{response,
 * context, info}`, and its usage. `hear` is told when the run has its slot
 * (`started`), then each event as it comes.
 */
export async function answerSearch(
  deps: RunDeps,
  request: ResearchRequest,
  call: RunCall,
  hear?: (event: ResearchEvent | { type: "started" }) => void,
): Promise<Answered<SearchAnswer>> {
  const run = await searchRun(deps, request, call);
  hear?.({ type: "started" });
  const answer = await collect(run.events, hear);
  return { answer, usage: run.held.usage()! };
}

async function searchRun(deps: RunDeps, request: ResearchRequest, call: RunCall): Promise<{ events: RunEvents; held: Held }> {
  const held = await hold(deps, call, "search", { prompt: request.prompt, fields: Object.keys(request.outputFormat?.shape ?? {}) });
  let prepared;
  try {
    prepared = await prepareRun(held.engine, request, held.signal);
  } catch (error) {
    throw held.fail(error);
  }
  const inner = runResearch(held.engine, prepared, held.signal);
  const events = (async function* () {
    try {
      const info = yield* inner;
      held.end(200, info.token_usage);
      return info;
    } catch (error) {
      throw held.fail(error);
    } finally {
      // Only reached unended when the reader stopped reading (return()): a caller that went away.
      held.end(faceOutcome(callerStopped(call.signal), call.requestId).status, 0, "canceled");
    }
  })();
  return { events, held };
}

/** Holds a run answered in one piece (a designed or published endpoint's graph): the same deadline and count; its usage comes back with it. */
export async function holdRun<T extends { info: TokenReport }>(
  deps: RunDeps,
  call: RunCall,
  subject: RunSubject,
  work: (engine: EngineDeps, signal: AbortSignal) => Promise<T>,
): Promise<Answered<T>> {
  const held = await hold(deps, call, subject, call.work ?? null);
  try {
    const answer = await work(held.engine, held.signal);
    return { answer, usage: held.end(200, answer.info.token_usage) };
  } catch (error) {
    throw held.fail(error);
  }
}

/** The usage of a call that ended before any run began (a refused WebSocket message, a socket closed unused), stamped as a run's is. */
export function refusedUsage(deps: RunDeps, status: number): Usage {
  return { status, tokens: 0, at: new Date(deps.clock.now()) };
}

interface Held {
  engine: EngineDeps;
  signal: AbortSignal;
  /** Ends the run as failed and gives the error it ends with: the deadline's 504, why the caller stopped it, or its own. */
  fail(error: unknown): unknown;
  /** Counts the run out and tells its usage (to RunCall.ended); only the first call does, and every call returns that usage. */
  end(status: number, tokens: number, outcome?: RunOutcome): Usage;
  /** The usage the run ended with; undefined while it runs. */
  usage(): Usage | undefined;
}

/** Waits for the run's slot, then holds it; a run refused or stopped while waiting is ended (counted out, recorded) and its error thrown. */
async function hold(deps: RunDeps, call: RunCall, subject: RunSubject, work: RunWork | null): Promise<Held> {
  if (call.origin) deps.watch?.(call.origin, work);
  const deadline = AbortSignal.timeout(deps.deadlineMs);
  // A suspension or ban of the caller's account, on any instance, stops the run with the 403 (waiting or running).
  const refused = new AbortController();
  const signal = AbortSignal.any([call.signal, deadline, refused.signal]);
  const unwatch = deps.standing?.track(call.account, (refusal) => refused.abort(refusal), call.key);
  const leave = deps.load.enter();
  // The run's span covers its wait for a slot too: a slow answer that waited shows it here.
  const span = (call.span ?? NO_SPAN).child("research.run", { "research.kind": subject });
  let slot: RunSlot | undefined;
  let startedAt = 0;
  let ended: Usage | undefined;
  const end = (status: number, tokens: number, outcome: RunOutcome = "ok", code?: string): Usage => {
    if (ended) return ended;
    ended = { status, tokens, at: new Date(deps.clock.now()) };
    unwatch?.();
    leave();
    slot?.release();
    // Only a run that started is finished; one refused or given up while it waited was counted (or not) as such.
    if (slot) {
      metrics.runDuration.observe({ kind: subject, outcome }, (performance.now() - startedAt) / 1000);
    }
    span.set({ "research.outcome": slot ? outcome : outcome === "canceled" ? "canceled" : "refused", "http.response.status_code": status });
    if (code) span.fail(code);
    span.end();
    call.ended?.(ended);
    return ended;
  };
  const fail = (error: unknown) => {
    let failure = error;
    let outcome: RunOutcome = "error";
    if (refused.signal.aborted) {
      failure = refused.signal.reason;
      outcome = "canceled";
    } else if (deadline.aborted) {
      failure = new ServiceError(
        "deadline_exceeded",
        `the ${subject} did not finish within ${waitWords(Math.round(deps.deadlineMs / 1000))}`,
      );
      outcome = "deadline";
      // Its deadline passed while it waited: the queue held it until it could no longer run.
      if (!slot && !ended) metrics.runsRefused.inc({ reason: "deadline" });
    } else if (call.signal.aborted) {
      failure = callerStopped(call.signal);
      outcome = "canceled";
    }
    const face = faceOutcome(failure, call.requestId);
    end(face.status, 0, outcome, face.code);
    return failure;
  };
  const usage = () => ended;
  try {
    // The deadline on the queue's clock: a run that would not finish by it is refused now, not answered 504 then.
    slot = await deps.queue.admit(call.account, signal, deps.clock.now() + deps.deadlineMs);
  } catch (error) {
    throw fail(error);
  }
  startedAt = performance.now();
  metrics.runsStarted.inc({ kind: subject });
  span.set({ "research.queue.wait_ms": slot.waitedMs });
  if (slot.waitedMs > 0) call.admitted?.({ waitedMs: slot.waitedMs, ahead: slot.ahead });
  return { engine: engineFor(deps, call.requestId, span), signal, end, fail, usage };
}

/** Why a caller stopped its run: the reason it gave (a second WebSocket message), else that it went away. */
function callerStopped(signal: AbortSignal): ServiceError {
  return signal.reason instanceof ServiceError ? signal.reason : new ServiceError("bad_request", "the caller went away");
}
