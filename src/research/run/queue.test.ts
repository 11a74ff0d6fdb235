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
