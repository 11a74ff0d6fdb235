/**
 * The run wrapper on its own: a real engine over in-memory search sources
 * (the SearchSource port), a manual clock, a real in-flight gauge. Only here
 * may a run be made slow by hand: the faces' tests use the real app.
 */
import { describe, expect, test } from "bun:test";
import { ManualClock } from "../../clock.ts";
import { loadConfig } from "../../config.ts";
import type { ContentsContext } from "../../contents/service.ts";
import { ServiceError } from "../../errors.ts";
import { InFlightGauge } from "../../limits/peak-load.ts";
import { createLogger } from "../../log.ts";
import { CircuitBreaker } from "../breaker.ts";
import { CallLatencies } from "../call-latencies.ts";
import type { EngineDeps } from "../engine.ts";
import { PassageCache } from "../passage-cache.ts";
import type { ResearchRequest } from "../request.ts";
import type { SearchSource } from "../sources/source.ts";
import { engineSettings } from "../wiring.ts";
import { collect, drain } from "./drain.ts";
import { holdRun, startSearch, type RunCall, type RunDeps } from "./hold.ts";
import { RunQueue } from "./queue.ts";
import { heldOpen } from "../../../test/helpers/held-run.ts";

interface Recorded {
  status: number;
  tokens: number;
  at: Date;
}

const answersNothing: SearchSource = { name: "empty", search: async () => [] };
/** Answers only when its signal aborts, with the abort: a provider slower than any deadline. */
const neverAnswers: SearchSource = {
  name: "hung",
  search: (_query, { signal }) =>
    new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true })),
};

function world(source: SearchSource, deadlineMs = 5_000, queue = { concurrency: 4, maxQueued: 4 }) {
  const clock = new ManualClock(Date.UTC(2030, 4, 6, 7, 8, 9));
  const lines: string[] = [];
  const settings = engineSettings(loadConfig({ PROVIDER_TIMEOUT_MS: "60000" }).search);
  const engine: EngineDeps = {
    sources: [source],
    // Never read: these sources find no pages.
    contents: {} as ContentsContext,
    passages: new PassageCache(),
    llm: null,
    breakers: new Map([[source.name, new CircuitBreaker(clock)]]),
    latencies: new Map(),
    readTimes: new CallLatencies(),
    settings: { ...settings, read: { ...settings.read, early: false } },
    log: createLogger({ level: "debug", sink: (line) => lines.push(line) }),
  };
  const load = new InFlightGauge();
  const deps: RunDeps = { engine, load, queue: new RunQueue(queue, clock, engine.log), deadlineMs, clock };
  const recorded: Recorded[] = [];
  const controller = new AbortController();
  const call: RunCall = {
    account: "acct_hold_test",
    requestId: "req_hold_test",
    signal: controller.signal,
    ended: ({ status, tokens, at }) => void recorded.push({ status, tokens, at }),
  };
  return { clock, deps, load, recorded, controller, call, lines };
}

/** Another caller of the same world: its own signal and usage records. */
function anotherCall(account: string) {
  const controller = new AbortController();
  const recorded: number[] = [];
  const call: RunCall = {
    account,
    requestId: `req_${account}`,
    signal: controller.signal,
    ended: ({ status }) => void recorded.push(status),
  };
  return { call, controller, recorded };
}

const question: ResearchRequest = { prompt: "river bridge cost", image: null, whitelist: null, blacklist: null, outputFormat: null };

async function failureOf(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error("the run did not fail");
}

describe("a search held by the wrapper", () => {
  test("a finished run: one usage record (200, its tokens, the clock's time), counted in flight only while it runs", async () => {
    const { deps, load, recorded, call, clock } = world(answersNothing);
    const events = await startSearch(deps, question, call);
    expect(load.value).toBe(1);
    const answer = await collect(events);
    expect(load.value).toBe(0);
    expect(answer.info.token_usage).toBeGreaterThan(0);
    expect(recorded).toEqual([{ status: 200, tokens: answer.info.token_usage, at: new Date(clock.now()) }]);
  });

  test("past the deadline: 504 deadline_exceeded in the search's words, recorded as 504 with no tokens", async () => {
    const { deps, load, recorded, call, clock } = world(neverAnswers, 50);
    const error = await failureOf(startSearch(deps, question, call).then(collect));
    expect(error.code).toBe("deadline_exceeded");
    expect(error.message).toBe("the search did not finish within 1 second");
    expect(load.value).toBe(0);
    expect(recorded).toEqual([{ status: 504, tokens: 0, at: new Date(clock.now()) }]);
  });

  test("a caller that stops the run with a reason: the run ends with that reason, recorded with its status", async () => {
    const { deps, load, recorded, call, controller } = world(neverAnswers);
    const events = await startSearch(deps, question, call);
    setTimeout(() => controller.abort(new ServiceError("bad_request", "one search per connection")), 20);
    const error = await failureOf(collect(events));
    expect(error.message).toBe("one search per connection");
    expect(load.value).toBe(0);
    expect(recorded.map((r) => r.status)).toEqual([400]);
  });

  test("a caller that went away without a reason: 'the caller went away'", async () => {
    const { deps, call, controller } = world(neverAnswers);
    const events = await startSearch(deps, question, call);
    setTimeout(() => controller.abort(), 20);
    expect((await failureOf(collect(events))).message).toBe("the caller went away");
  });

  test("a reader that fails stops the run: the reader's error, the run counted out and recorded once as a caller gone", async () => {
    const { deps, load, recorded, call } = world(answersNothing);
    const events = await startSearch(deps, question, call);
    const closed = new ServiceError("bad_request", "the socket closed");
    const error = await failureOf(
      drain(events, () => {
        throw closed;
      }),
    );
    expect(error).toBe(closed);
    expect(load.value).toBe(0);
    expect(recorded.map((r) => [r.status, r.tokens])).toEqual([[400, 0]]);
  });
});

describe("a run answered in one piece (an endpoint call)", () => {
  test("its result and tokens; the engine's log lines carry the call's request id", async () => {
    const { deps, load, recorded, call, clock, lines } = world(answersNothing);
    const result = await holdRun(deps, call, "endpoint", async (engine) => {
      expect(load.value).toBe(1);
      engine.log.info("node ran");
      return { info: { token_usage: 7, tokens: { prompt: 5, completion: 2, total: 7 } } };
    });
    expect(result.answer.info.token_usage).toBe(7);
    expect(load.value).toBe(0);
    expect(recorded).toEqual([{ status: 200, tokens: 7, at: new Date(clock.now()) }]);
    // The usage comes back with the answer too: what a route charges its call with.
    expect(result.usage).toEqual({ status: 200, tokens: 7, at: new Date(clock.now()) });
    expect(JSON.parse(lines.find((l) => l.includes("node ran"))!).request_id).toBe("req_hold_test");
  });

  test("past the deadline: 504 deadline_exceeded in the endpoint's words", async () => {
    const { deps, recorded, call } = world(answersNothing, 30);
    const error = await failureOf(
      holdRun(
        deps,
        call,
        "endpoint",
        (_engine, signal) => new Promise<never>((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
      ),
    );
    expect(error.code).toBe("deadline_exceeded");
    expect(error.message).toBe("the endpoint did not finish within 1 second");
    expect(recorded.map((r) => r.status)).toEqual([504]);
  });

  test("its own failure passes through, recorded with the status the faces answer it with", async () => {
    const { deps, load, recorded, call } = world(answersNothing);
    const cycle = new ServiceError("node_not_runnable", "the endpoint's graph has a cycle and cannot run");
    expect(await failureOf(holdRun(deps, call, "endpoint", async () => Promise.reject(cycle)))).toBe(cycle);
    const bug = new TypeError("x is undefined");
    await expect(holdRun(deps, call, "endpoint", async () => Promise.reject(bug))).rejects.toBe(bug);
    expect(load.value).toBe(0);
    expect(recorded.map((r) => r.status)).toEqual([409, 500]);
  });
});

describe("a run admitted through the queue", () => {
  test("with every slot busy a run waits, then runs when one frees; its wait is reported by the clock", async () => {
    const { deps, call, clock } = world(answersNothing, 5_000, { concurrency: 1, maxQueued: 4 });
    const first = heldOpen();
    const running = holdRun(deps, call, "endpoint", first.work);
    const second = anotherCall("acct_other");
    const waits: { waitedMs: number; ahead: number }[] = [];
    let ran = false;
    const waiting = holdRun(deps, { ...second.call, admitted: (slot) => waits.push(slot) }, "endpoint", async () => {
      ran = true;
      return { info: { token_usage: 2, tokens: { prompt: 2, completion: 0, total: 2 } } };
    });
    await Bun.sleep(5);
    expect(ran).toBe(false);
    expect(deps.queue.depth()).toEqual({ running: 1, queued: 1, capacity: 1, queueMax: 4 });
    clock.advance(1_500);
    first.finish();
    await running;
    expect((await waiting).answer.info.token_usage).toBe(2);
    expect(ran).toBe(true);
    expect(waits).toEqual([{ waitedMs: 1_500, ahead: 0 }]);
    expect(second.recorded).toEqual([200]);
    expect(deps.queue.depth()).toMatchObject({ running: 0, queued: 0 });
  });

  test("the deadline counts the wait: a run still queued when it passes is a 504 that never ran", async () => {
    const { deps, call, load } = world(answersNothing, 60, { concurrency: 1, maxQueued: 4 });
    const first = heldOpen();
    const running = holdRun(deps, call, "endpoint", first.work);
    const second = anotherCall("acct_other");
    let ran = false;
    const error = await failureOf(
      startSearch(deps, question, second.call).then(() => {
        ran = true;
      }),
    );
    expect(error.code).toBe("deadline_exceeded");
    expect(error.message).toBe("the search did not finish within 1 second");
    expect(ran).toBe(false);
    expect(second.recorded).toEqual([504]);
    expect(deps.queue.depth()).toMatchObject({ running: 1, queued: 0 });
    // The waiting run was counted in flight while it waited (it is load), and out once it ended.
    expect(load.value).toBe(1);
    first.finish();
    await running;
    expect(load.value).toBe(0);
  });

  test("a caller that goes away while queued leaves at once, is recorded as gone and never runs", async () => {
    const { deps, call } = world(answersNothing, 5_000, { concurrency: 1, maxQueued: 4 });
    const first = heldOpen();
    const running = holdRun(deps, call, "endpoint", first.work);
    const second = anotherCall("acct_other");
    let ran = false;
    const waiting = failureOf(
      holdRun(deps, second.call, "endpoint", async () => {
        ran = true;
        return { info: { token_usage: 0, tokens: { prompt: 0, completion: 0, total: 0 } } };
      }),
    );
    await Bun.sleep(5);
    expect(deps.queue.depth().queued).toBe(1);
    second.controller.abort();
    expect((await waiting).message).toBe("the caller went away");
    expect(deps.queue.depth()).toMatchObject({ running: 1, queued: 0 });
    expect(second.recorded).toEqual([400]);
    first.finish();
    await running;
    expect(ran).toBe(false);
  });

  test("a full queue refuses at once with 503 queue_full and Retry-After, recorded as 503", async () => {
    const { deps, call, load } = world(answersNothing, 5_000, { concurrency: 1, maxQueued: 0 });
    const first = heldOpen();
    const running = holdRun(deps, call, "endpoint", first.work);
    const second = anotherCall("acct_other");
    const error = await failureOf(startSearch(deps, question, second.call));
    expect(error.code).toBe("queue_full");
    expect(error.extra.retryAfterSeconds).toBe(5);
    expect(second.recorded).toEqual([503]);
    expect(load.value).toBe(1);
    first.finish();
    await running;
  });
});
