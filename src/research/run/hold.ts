/**
 * The one wrapper around a research run, for every caller: the JSON answer,
 * the SSE and WebSocket streams, and designed and published endpoint calls.
 * It admits the run through this instance's fair queue (queue.ts), holds it
 * to the service deadline (a 504, with whatever was gathered dropped),
 * counts it as in flight (at peak, free buckets refill more slowly: spec
 * 8.3), gives the engine the call's request-id logger, says why a run its
 * caller stopped ended, and ends every run it holds in exactly one usage
 * record, stamped by the injected clock. No HTTP here: a face passes its
 * caller's account, AbortSignal, request id and where usage goes. A run
 * whose account is suspended or banned meanwhile ends with that 403.
 *
 * The deadline counts from when the run asks for its slot, so time spent
 * waiting is part of it: a caller is never held longer than the deadline,
 * and a run whose deadline passes while it waits ends as a 504 without
 * running. A caller that goes away while waiting leaves the queue at once.
 * The in-flight count includes waiting runs: they are the instance's load.
 */
import type { Clock } from "../../clock.ts";
import { ServiceError } from "../../errors.ts";
import type { CallOrigin } from "../../caller.ts";
import { waitWords } from "../../wait-words.ts";
import { prepareRun, runResearch, type EngineDeps } from "../engine.ts";
import { parseSearchBody, type ResearchRequest, type SearchBody } from "../request.ts";
import type { TokenReport } from "../types.ts";
import type { RunEvents } from "./drain.ts";
import { faceOutcome } from "./outcome.ts";
import type { RunQueue, RunSlot } from "./queue.ts";

/** Runs in flight in this process (limits/peak-load.ts): enter() counts one in; the function it returns counts it out. */
export interface LoadGauge {
  enter(): () => void;
}

/**
 * Where a call's usage goes, once, when its run ends: the status (200, or
 * the failure's as faceOutcome maps it), the tokens (0 for a failure) and the
 * time by the service's clock. A stream writes a record of its own; a call
 * answered within its request puts the tokens on the request's record.
 */
export interface RunUsage {
  record(status: number, tokens: number, at: Date): void;
}

/**
 * Who ends an account's runs when it is suspended or banned mid-run
 * (accounts/standing-watch.ts): track() registers a run, `stop` is given the
 * 403 it ends with, and the returned function unregisters it.
 */
export interface StandingWatcher {
  track(accountId: string, stop: (refusal: ServiceError) => void): () => void;
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
 * log lines and the usage record), its signal (the caller going away), where
 * its usage goes, and who hears how long it waited for its slot (a face's
 * request log line).
 */
export interface RunCall {
  account: string;
  requestId: string;
  signal: AbortSignal;
  usage: RunUsage;
  admitted?: (slot: Pick<RunSlot, "waitedMs" | "ahead">) => void;
  /** Who called from where, for RunDeps.watch; a run without one is not watched. */
  origin?: CallOrigin;
  /** An endpoint call's work (a search's is its request). */
  work?: RunWork;
}

/** The deadline's words: "the search did not finish within …", "the endpoint did not finish within …". */
export type RunSubject = "search" | "endpoint";

export function checkSearchBody(deps: RunDeps, body: SearchBody): ResearchRequest {
  return parseSearchBody(body, { imageMaxBytes: deps.engine.settings.imageMaxBytes });
}

/** The engine for one call: its log lines (a provider's own words among them) carry the call's request id. */
export function engineFor(deps: RunDeps, requestId: string): EngineDeps {
  return { ...deps.engine, log: deps.engine.log.child({ request_id: requestId }) };
}

/**
 * Starts a search. Preparation (an image URL's fetch) happens before the
 * first event, so its 422 can still be a status; the events then stream.
 * Read them to the end (drain or collect): failures surface there, as
 * ServiceErrors (504 past the deadline), and the usage is recorded then.
 */
export async function startSearch(deps: RunDeps, request: ResearchRequest, call: RunCall): Promise<RunEvents> {
  const held = await hold(deps, call, "search", { prompt: request.prompt, fields: Object.keys(request.outputFormat?.shape ?? {}) });
  let prepared;
  try {
    prepared = await prepareRun(held.engine, request, held.signal);
  } catch (error) {
    throw held.fail(error);
  }
  const inner = runResearch(held.engine, prepared, held.signal);
  return (async function* () {
    try {
      const info = yield* inner;
      held.end(200, info.token_usage);
      return info;
    } catch (error) {
      throw held.fail(error);
    } finally {
      // Only reached unended when the reader stopped reading (return()): a caller that went away.
      held.end(faceOutcome(callerStopped(call.signal), call.requestId).status, 0);
    }
  })();
}

/** Holds a run answered in one piece (a designed or published endpoint's graph): the same deadline, count and usage. */
export async function holdRun<T extends { info: TokenReport }>(
  deps: RunDeps,
  call: RunCall,
  subject: RunSubject,
  work: (engine: EngineDeps, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const held = await hold(deps, call, subject, call.work ?? null);
  try {
    const result = await work(held.engine, held.signal);
    held.end(200, result.info.token_usage);
    return result;
  } catch (error) {
    throw held.fail(error);
  }
}

/** A call that ended before any run began (a refused WebSocket message, a socket closed unused): its usage, stamped as a run's is. */
export function recordRefused(deps: RunDeps, usage: RunUsage, status: number): void {
  usage.record(status, 0, new Date(deps.clock.now()));
}

interface Held {
  engine: EngineDeps;
  signal: AbortSignal;
  /** Ends the run as failed and gives the error it ends with: the deadline's 504, why the caller stopped it, or its own. */
  fail(error: unknown): unknown;
  /** Counts the run out and records its usage; only the first call does. */
  end(status: number, tokens: number): void;
}

/** Waits for the run's slot, then holds it; a run refused or stopped while waiting is ended (counted out, recorded) and its error thrown. */
async function hold(deps: RunDeps, call: RunCall, subject: RunSubject, work: RunWork | null): Promise<Held> {
  if (call.origin) deps.watch?.(call.origin, work);
  const deadline = AbortSignal.timeout(deps.deadlineMs);
  // A suspension or ban of the caller's account, on any instance, stops the run with the 403 (waiting or running).
  const refused = new AbortController();
  const signal = AbortSignal.any([call.signal, deadline, refused.signal]);
  const unwatch = deps.standing?.track(call.account, (refusal) => refused.abort(refusal));
  const leave = deps.load.enter();
  let slot: RunSlot | undefined;
  let ended = false;
  const end = (status: number, tokens: number) => {
    if (ended) return;
    ended = true;
    unwatch?.();
    leave();
    slot?.release();
    call.usage.record(status, tokens, new Date(deps.clock.now()));
  };
  const fail = (error: unknown) => {
    let failure = error;
    if (refused.signal.aborted) failure = refused.signal.reason;
    else if (deadline.aborted)
      failure = new ServiceError(
        "deadline_exceeded",
        `the ${subject} did not finish within ${waitWords(Math.round(deps.deadlineMs / 1000))}`,
      );
    else if (call.signal.aborted) failure = callerStopped(call.signal);
    end(faceOutcome(failure, call.requestId).status, 0);
    return failure;
  };
  try {
    slot = await deps.queue.admit(call.account, signal);
  } catch (error) {
    throw fail(error);
  }
  if (slot.waitedMs > 0) call.admitted?.({ waitedMs: slot.waitedMs, ahead: slot.ahead });
  return { engine: engineFor(deps, call.requestId), signal, end, fail };
}

/** Why a caller stopped its run: the reason it gave (a second WebSocket message), else that it went away. */
function callerStopped(signal: AbortSignal): ServiceError {
  return signal.reason instanceof ServiceError ? signal.reason : new ServiceError("bad_request", "the caller went away");
}
