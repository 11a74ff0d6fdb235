/**
 * The run queue on its own: slots, order, leaving, refusal and its log
 * lines, with a manual clock for the waits.
 */
import { describe, expect, test } from "bun:test";
import { ManualClock } from "../../clock.ts";
import { ServiceError } from "../../errors.ts";
import { createLogger } from "../../log.ts";
import { RunQueue, type RunSlot } from "./queue.ts";

function queue(concurrency: number, maxQueued = 100) {
  const clock = new ManualClock(Date.UTC(2030, 0, 1));
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({ level: "debug", sink: (line) => lines.push(JSON.parse(line)) });
  return { runs: new RunQueue({ concurrency, maxQueued }, clock, log), clock, lines };
}

const open = () => new AbortController().signal;

/** Lets granted slots' promise callbacks run. */
const settle = () => Bun.sleep(0);

/** Asks for slots by name and notes the order they are granted in; `turn` ends the run granted last. */
function runner(runs: RunQueue) {
  const order: string[] = [];
  const slots = new Map<string, RunSlot>();
  const ask = (account: string, name: string, signal = open()) =>
    runs.admit(account, signal).then((slot) => {
      order.push(name);
      slots.set(name, slot);
      return slot;
    });
  const turn = async () => {
    slots.get(order.at(-1)!)!.release();
    await settle();
  };
  return { order, ask, turn };
}

describe("slots", () => {
  test("up to the capacity run at once; the next waits until one is released", async () => {
    const { runs } = queue(2);
    const { order, ask } = runner(runs);
    const a1 = await ask("acct_a", "a1");
    await ask("acct_a", "a2");
    const a3 = ask("acct_a", "a3");
    await settle();
    expect(order).toEqual(["a1", "a2"]);
    expect(runs.depth()).toEqual({ running: 2, queued: 1, capacity: 2, queueMax: 100 });
    a1.release();
    await a3;
    expect(order).toEqual(["a1", "a2", "a3"]);
    expect(runs.depth()).toMatchObject({ running: 2, queued: 0 });
  });

  test("releasing a slot twice frees it once", async () => {
    const { runs } = queue(1);
    const { order, ask } = runner(runs);
    const first = await ask("acct_a", "a1");
    void ask("acct_a", "a2");
    void ask("acct_a", "a3");
    first.release();
    first.release();
    await settle();
    expect(order).toEqual(["a1", "a2"]);
    expect(runs.depth()).toMatchObject({ running: 1, queued: 1 });
  });

  test("a slot granted at once waited 0 ms with nobody ahead; a queued one, the clock's time and the waiters ahead", async () => {
    const { runs, clock } = queue(1);
    const first = await runs.admit("acct_a", open());
    expect([first.waitedMs, first.ahead]).toEqual([0, 0]);
    const second = runs.admit("acct_b", open());
    const third = runs.admit("acct_c", open());
    clock.advance(700);
    first.release();
    const granted = await second;
    expect([granted.waitedMs, granted.ahead]).toEqual([700, 0]);
    clock.advance(300);
    granted.release();
    const last = await third;
    expect([last.waitedMs, last.ahead]).toEqual([1_000, 1]);
  });
});

describe("order", () => {
  test("one account's runs start in the order they asked (FIFO)", async () => {
    const { runs } = queue(1);
    const { order, ask, turn } = runner(runs);
    await ask("acct_a", "a0");
    for (const name of ["a1", "a2", "a3", "a4"]) void ask("acct_a", name);
    for (let i = 0; i < 4; i++) await turn();
    expect(order).toEqual(["a0", "a1", "a2", "a3", "a4"]);
  });

  test("accounts take turns: a second account waits one turn behind a thousand of the first's, not a thousand", async () => {
    const { runs } = queue(1, 2_000);
    const { order, ask, turn } = runner(runs);
    await ask("acct_busy", "busy0");
    for (let i = 1; i <= 1_000; i++) void ask("acct_busy", `busy${i}`);
    void ask("acct_quiet", "quiet1");
    void ask("acct_quiet", "quiet2");
    for (let i = 0; i < 5; i++) await turn();
    expect(order).toEqual(["busy0", "busy1", "quiet1", "busy2", "quiet2", "busy3"]);
    expect(runs.depth()).toMatchObject({ running: 1, queued: 997 });
  });

  test("three accounts: each lane in turn, in the order the lanes started waiting", async () => {
    const { runs } = queue(1);
    const { order, ask, turn } = runner(runs);
    await ask("acct_a", "a0");
    const asks: [string, string][] = [
      ["acct_a", "a1"],
      ["acct_a", "a2"],
      ["acct_a", "a3"],
      ["acct_b", "b1"],
      ["acct_c", "c1"],
      ["acct_c", "c2"],
    ];
    for (const [account, name] of asks) void ask(account, name);
    for (let i = 0; i < asks.length; i++) await turn();
    expect(order).toEqual(["a0", "a1", "b1", "c1", "a2", "c2", "a3"]);
  });

  test("an account holding every slot: the next slot freed goes to the account that runs none, though its lane came later", async () => {
    const { runs } = queue(2);
    const { order, ask } = runner(runs);
    const a0 = await ask("acct_a", "a0");
    const a1 = await ask("acct_a", "a1");
    for (const name of ["a2", "a3"]) void ask("acct_a", name);
    void ask("acct_b", "b1");
    a0.release();
    await settle();
    expect(order).toEqual(["a0", "a1", "b1"]);
    a1.release();
    await settle();
    expect(order).toEqual(["a0", "a1", "b1", "a2"]);
  });

  test("with nobody else waiting, one account may use every slot", async () => {
    const { runs } = queue(3);
    const { order, ask } = runner(runs);
    for (const name of ["a0", "a1", "a2"]) await ask("acct_a", name);
    expect(order).toEqual(["a0", "a1", "a2"]);
    expect(runs.depth()).toMatchObject({ running: 3, queued: 0 });
  });
});

describe("leaving", () => {
  test("a waiter whose signal aborts leaves at once with its reason, and the slot goes to the next", async () => {
    const { runs } = queue(1);
    const { order, ask } = runner(runs);
    const first = await ask("acct_a", "a1");
    const gone = new AbortController();
    const leaving = ask("acct_b", "b1", gone.signal);
    const next = ask("acct_c", "c1");
    const reason = new ServiceError("bad_request", "the client closed the socket");
    gone.abort(reason);
    await expect(leaving).rejects.toBe(reason);
    expect(runs.depth()).toMatchObject({ running: 1, queued: 1 });
    first.release();
    await next;
    expect(order).toEqual(["a1", "c1"]);
  });

  test("a signal already aborted gets no slot, even a free one", async () => {
    const { runs } = queue(1);
    const gone = new AbortController();
    gone.abort(new Error("gone"));
    await expect(runs.admit("acct_a", gone.signal)).rejects.toThrow("gone");
    expect(runs.depth()).toMatchObject({ running: 0, queued: 0 });
  });

  test("an account whose only waiter left loses its turn; the others keep theirs", async () => {
    const { runs } = queue(1);
    const { order, ask, turn } = runner(runs);
    await ask("acct_a", "a0");
    const b = new AbortController();
    void ask("acct_a", "a1");
    void ask("acct_b", "b1", b.signal).catch(() => {});
    void ask("acct_c", "c1");
    b.abort();
    await turn();
    await turn();
    expect(order).toEqual(["a0", "a1", "c1"]);
    expect(runs.depth()).toMatchObject({ running: 1, queued: 0 });
  });
});

describe("refusal", () => {
  test("a full queue refuses at once with 503 queue_full and a Retry-After; a place that frees takes the next", async () => {
    const { runs } = queue(1, 2);
    const first = await runs.admit("acct_a", open());
    const waiting = [runs.admit("acct_a", open()), runs.admit("acct_b", open())];
    const refused = await runs.admit("acct_c", open()).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ServiceError);
    expect((refused as ServiceError).code).toBe("queue_full");
    expect((refused as ServiceError).message).toBe("this instance is at capacity (2 research runs waiting), try again in 5 seconds");
    expect((refused as ServiceError).extra.retryAfterSeconds).toBe(5);
    expect(runs.depth()).toMatchObject({ running: 1, queued: 2 });
    first.release();
    await waiting[0];
    // The run that started made a place: the next one waits instead of being refused.
    void runs.admit("acct_c", open());
    expect(runs.depth()).toMatchObject({ running: 1, queued: 2 });
  });

  test("a queue of 0 runs only what fits the slots and refuses the rest", async () => {
    const { runs } = queue(2, 0);
    await runs.admit("acct_a", open());
    await runs.admit("acct_a", open());
    await expect(runs.admit("acct_a", open())).rejects.toMatchObject({ code: "queue_full" });
  });
});

describe("refused early", () => {
  const SECOND = 1_000;

  /**
   * `concurrency` slots, each having held a run for `runMs` (the estimate's
   * only samples: its mean and its slow run), and each busy again with a run
   * of acct_busy's (`slots`): the next run waits.
   */
  async function measured(runMs: number, concurrency = 2) {
    const made = queue(concurrency);
    const first = await Promise.all(Array.from({ length: concurrency }, () => made.runs.admit("acct_busy", open())));
    made.clock.advance(runMs);
    const slots: RunSlot[] = [];
    for (const slot of first) {
      slot.release();
      slots.push(await made.runs.admit("acct_busy", open()));
    }
    return { ...made, slots };
  }
  const errorOf = (admitted: Promise<RunSlot>) =>
    admitted.then(
      () => undefined,
      (error: ServiceError) => error,
    );
  /** A refusal comes at once: a run still waiting (or running) after the promise callbacks ran was not refused. */
  const refusalOf = (admitted: Promise<RunSlot>) => Promise.race([errorOf(admitted), settle().then(() => undefined)]);

  test("before any run has ended nothing is refused on an estimate, however near the deadline", async () => {
    const { runs, clock } = queue(1);
    await runs.admit("acct_a", open());
    void runs.admit("acct_a", open(), clock.now() + 1);
    await settle();
    expect(runs.depth()).toMatchObject({ running: 1, queued: 1 });
  });

  test("a run whose wait (its place × the mean run ÷ the slots) and a run of its own fit its deadline waits; one that would end a millisecond late is refused at once", async () => {
    const { runs, clock } = await measured(10 * SECOND);
    // First in line: it waits for one of two slots to free, half a 10 s run, then runs 10 s.
    void runs.admit("acct_a", open(), clock.now() + 15 * SECOND);
    expect(runs.depth()).toMatchObject({ running: 2, queued: 1 });
    // Second in line: 10 s to wait, 10 s to run.
    const refused = await refusalOf(runs.admit("acct_a", open(), clock.now() + 20 * SECOND - 1));
    expect(refused).toBeInstanceOf(ServiceError);
    expect(refused!.code).toBe("queue_full");
    expect(refused!.message).toBe(
      "this instance is at capacity (a research run would wait about 10 seconds for a slot and not finish within its deadline), try again in 10 seconds",
    );
    expect(refused!.extra.retryAfterSeconds).toBe(10);
    expect(runs.depth()).toMatchObject({ running: 2, queued: 1 });
    void runs.admit("acct_a", open(), clock.now() + 20 * SECOND);
    expect(runs.depth()).toMatchObject({ running: 2, queued: 2 });
  });

  test("the estimate is the mean of the runs lately ended, and follows them", async () => {
    const { runs, clock, slots } = await measured(4 * SECOND, 1);
    // One slot and 4 s runs: the first in line waits 4 s and runs 4 s.
    expect(await refusalOf(runs.admit("acct_a", open(), clock.now() + 8 * SECOND - 1))).toMatchObject({ code: "queue_full" });
    const waiting = runs.admit("acct_a", open(), clock.now() + 8 * SECOND);
    // The run in the slot ends after 1 s: the mean is 2.5 s (a slow run still 4 s), and the next in line waits that.
    clock.advance(SECOND);
    slots[0]!.release();
    await waiting;
    expect(await refusalOf(runs.admit("acct_a", open(), clock.now() + 6_499))).toMatchObject({ code: "queue_full" });
    void runs.admit("acct_a", open(), clock.now() + 6_500);
    expect(runs.depth()).toMatchObject({ running: 1, queued: 1 });
  });

  test("the place counted is the caller's turn among the lanes: another account's first run waits behind no lane's queue", async () => {
    const { runs, clock } = await measured(10 * SECOND);
    for (let i = 0; i < 5; i++) void runs.admit("acct_busy", open());
    // acct_busy's next waits 6 × 10 ÷ 2 = 30 s, and runs 10 s.
    expect(await refusalOf(runs.admit("acct_busy", open(), clock.now() + 40 * SECOND - 1))).toMatchObject({ code: "queue_full" });
    // acct_quiet's first comes next: 5 s.
    void runs.admit("acct_quiet", open(), clock.now() + 15 * SECOND);
    expect(runs.depth()).toMatchObject({ queued: 6 });
    // Its second waits behind one turn of each lane (2 ahead): 3 × 10 ÷ 2 = 15 s.
    expect(await refusalOf(runs.admit("acct_quiet", open(), clock.now() + 25 * SECOND - 1))).toMatchObject({ code: "queue_full" });
    void runs.admit("acct_quiet", open(), clock.now() + 25 * SECOND);
    expect(runs.depth()).toMatchObject({ queued: 7 });
  });

  test("a run with no deadline is never refused on an estimate", async () => {
    const { runs } = await measured(60 * SECOND);
    for (let i = 0; i < 10; i++) void runs.admit("acct_a", open());
    expect(runs.depth()).toMatchObject({ queued: 10 });
  });

  test("Retry-After is the wait in whole seconds, rounded up, and 1 to 60", async () => {
    // 300 ms to wait: said as a second.
    const short = await measured(600);
    const soon = await refusalOf(short.runs.admit("acct_a", open(), short.clock.now() + 1));
    expect(soon!.extra.retryAfterSeconds).toBe(1);
    expect(soon!.message).toBe(
      "this instance is at capacity (a research run would wait about 1 second for a slot and not finish within its deadline), try again in 1 second",
    );
    // 2,001 ms: 3 s.
    const odd = await measured(4_002);
    expect((await refusalOf(odd.runs.admit("acct_a", open(), odd.clock.now() + 1)))!.extra.retryAfterSeconds).toBe(3);
    // 500 s: a minute at most.
    const long = await measured(1_000 * SECOND);
    const later = await refusalOf(long.runs.admit("acct_a", open(), long.clock.now() + 1));
    expect(later!.extra.retryAfterSeconds).toBe(60);
    expect(later!.message).toBe(
      "this instance is at capacity (a research run would wait about 8 minutes for a slot and not finish within its deadline), try again in a minute",
    );
  });

  test("when runs grow slower, a waiter that would no longer finish in time is refused then, not at its deadline; the others wait on", async () => {
    const { runs, clock, slots, lines } = await measured(2 * SECOND, 1);
    const first = runs.admit("acct_a", open(), clock.now() + 60 * SECOND);
    // Second in line with 2 s runs: 4 s to wait, 2 to run; 12 s is room enough.
    const tight = errorOf(runs.admit("acct_a", open(), clock.now() + 12 * SECOND));
    const third = runs.admit("acct_a", open(), clock.now() + 60 * SECOND);
    expect(runs.depth()).toMatchObject({ queued: 3 });
    // The run in the slot takes 8 s: the mean is 5 s, a slow run 8 s; the first takes the slot. The tight one, next in
    // line with 4 s left, would wait 5 (3.5 doubted) and run up to 8: refused now, 4 s before its deadline.
    clock.advance(8 * SECOND);
    slots[0]!.release();
    await first;
    const refused = await Promise.race([tight, settle().then(() => undefined)]);
    expect(refused).toBeInstanceOf(ServiceError);
    expect(refused!.code).toBe("queue_full");
    expect(refused!.message).toBe(
      "this instance is at capacity (this research run would wait about 5 seconds for a slot and not finish within its deadline), try again in 5 seconds",
    );
    expect(refused!.extra.retryAfterSeconds).toBe(5);
    // The third moves up into its place: 5 s to wait and 8 to run fit the 52 s it has left.
    expect(runs.depth()).toMatchObject({ running: 1, queued: 1 });
    expect(lines.at(-1)).toMatchObject({
      level: "warn",
      msg: "waiting research runs would not finish by their deadline; refusing them",
      refused: 1,
    });
    void third;
  });

  test("a waiter far from its turn is refused only once it would be late even with its wait 30% shorter than estimated; then before its deadline", async () => {
    const { runs, clock, slots } = await measured(2 * SECOND, 1);
    // Nine runs without a deadline ahead of it: 10 × 2 s to wait and a slow run of 2 s fit its 22 s.
    const ahead = Array.from({ length: 9 }, () => runs.admit("acct_a", open()));
    const late = errorOf(runs.admit("acct_a", open(), clock.now() + 22 * SECOND));
    expect(runs.depth()).toMatchObject({ queued: 10 });
    // The run in the slot took 2.6 s: the mean is 2.3 s (a slow run 2.6 s), and the runs after it take 2.3 s. Ninth in
    // line with 19.4 s left, its plain estimate (9 × 2.3 s to wait, 2.6 to run: 23.3 s) is late; with its wait 30%
    // shorter (14.49 s) it is not.
    let slot = slots[0]!;
    const turns: string[] = [];
    for (const [turn, ms] of [2_600, 2_300, 2_300, 2_300, 2_300].entries()) {
      clock.advance(ms);
      slot.release();
      slot = await ahead[turn]!;
      const outcome = await Promise.race([late, settle().then(() => "waiting" as const)]);
      turns.push(outcome === "waiting" ? "waiting" : outcome!.code);
    }
    // Fifth in line at 11.8 s, its wait shortened (8.05 s) and a slow run (2.6 s) end at 22.45 s: late even so; it is
    // refused 10.2 s before its deadline, and its plain estimate (25.9 s) says it would have missed it.
    expect(turns).toEqual(["waiting", "waiting", "waiting", "waiting", "queue_full"]);
    expect(((await late) as ServiceError).extra.retryAfterSeconds).toBe(12);
  });

  test("a waiter stays while its wait less the doubt and a slow run of its own end in time; a newcomer with as little time left is refused", async () => {
    const { runs, clock } = queue(1);
    const first = await runs.admit("acct_busy", open());
    clock.advance(2 * SECOND);
    first.release();
    const second = await runs.admit("acct_busy", open());
    const next = runs.admit("acct_a", open(), clock.now() + 60 * SECOND);
    // Second in line with 2 s runs: 4 s to wait and 2 to run fit its 10.5 s.
    const waiting = errorOf(runs.admit("acct_a", open(), clock.now() + 10_500));
    expect(runs.depth()).toMatchObject({ queued: 2 });
    // The run in the slot took 4 s: the mean is 3 s, a slow run 4 s. Next in line with 6.5 s left, it would wait 3 s
    // and run up to 4: arriving now it would be refused; having waited, its wait less the doubt (2.1 s) and 4 fit.
    clock.advance(4 * SECOND);
    second.release();
    await next;
    expect(await refusalOf(runs.admit("acct_b", open(), clock.now() + 6_500))).toMatchObject({ code: "queue_full" });
    expect(await Promise.race([waiting, settle().then(() => "waiting")])).toBe("waiting");
    expect(runs.depth()).toMatchObject({ running: 1, queued: 1 });
  });

  test("a waiter near its turn is refused when a slow run of its own would end past its deadline, though a run of mean time would not", async () => {
    const { runs, clock } = queue(1);
    const first = await runs.admit("acct_busy", open());
    clock.advance(2 * SECOND);
    first.release();
    const second = await runs.admit("acct_busy", open());
    const next = runs.admit("acct_a", open(), clock.now() + 60 * SECOND);
    const waiting = errorOf(runs.admit("acct_a", open(), clock.now() + 10 * SECOND));
    // Next in line with 6 s left after a 4 s run (mean 3 s, slow 4 s): its wait less the doubt (2.1 s) and a mean run
    // (3 s) would fit, a slow one (4 s) would not: it would start with too little time and likely end as a 504.
    clock.advance(4 * SECOND);
    second.release();
    await next;
    expect(await Promise.race([waiting, settle().then(() => undefined)])).toMatchObject({ code: "queue_full" });
    expect(runs.depth()).toMatchObject({ running: 1, queued: 0 });
  });
});

describe("log lines", () => {
  test("queueing and refusing are each said once per 10 s with the depth, then with how many were skipped", async () => {
    const { runs, clock, lines } = queue(1, 2);
    await runs.admit("acct_a", open());
    void runs.admit("acct_a", open());
    void runs.admit("acct_a", open());
    for (let i = 0; i < 3; i++) await runs.admit("acct_a", open()).catch(() => {});
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      ["info", "runs are queueing"],
      ["warn", "run queue full; refusing runs"],
    ]);
    expect(lines[0]).toMatchObject({ running: 1, queued: 1, capacity: 1, queue_max: 2 });
    expect(lines[1]).toMatchObject({ running: 1, queued: 2, capacity: 1, queue_max: 2 });
    clock.advance(10_000);
    await runs.admit("acct_a", open()).catch(() => {});
    expect(lines.at(-1)).toMatchObject({ level: "warn", msg: "run queue full; refusing runs", skipped: 2 });
  });
});
