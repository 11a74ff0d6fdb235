import { describe, expect, test } from "bun:test";
import type { UsageEvent } from "../call-usage.ts";
import type { Caller } from "../caller.ts";
import { createLogger } from "../log.ts";
import { Call } from "./call.ts";

const caller: Caller = {
  accountId: "acct_call",
  accountName: "call",
  keyId: "key_call",
  keyPrefix: "sk_live_abcdefgh",
  balanceMicros: 0,
  customRateLimit: null,
};

function callOf(billable: boolean, options: { commitFails?: boolean; now?: () => number } = {}) {
  const records: UsageEvent[] = [];
  const committed: UsageEvent[] = [];
  const lines: string[] = [];
  const call = new Call({
    caller,
    address: () => "203.0.113.9",
    requestId: "req_call_test",
    route: billable ? "POST /v1/search" : "GET /v1/account",
    billable,
    usage: {
      record: (event) => void records.push(event),
      commit: async (event) => {
        if (options.commitFails) throw new Error("the database is away");
        committed.push(event);
      },
      accepting: () => true,
    },
    now: options.now ?? (() => 1_000),
    log: createLogger({ level: "debug", sink: (line) => lines.push(line) }),
  });
  return { call, records, committed, lines };
}

describe("a call ends in exactly one usage record", () => {
  test("a billable call commits the tokens it was charged before its answer, stamped by the service clock, once", async () => {
    const { call, records, committed } = callOf(true);
    call.ran({ apiId: 7 });
    await call.charge({ tokens: 42 });
    call.finish(200);
    call.finish(200);
    expect(committed).toEqual([
      {
        apiId: 7,
        caller,
        route: "POST /v1/search",
        billable: true,
        status: 200,
        tokens: 42,
        requestId: "req_call_test",
        eventId: call.eventId,
        at: new Date(1_000),
        latencyMs: 0,
      },
    ]);
    expect(records).toEqual([]);
    expect(call.eventId).toMatch(/^use_/);
  });

  test("a record carries the call's latency by the service clock, from its start to its record (a stream's: to its end)", async () => {
    let now = 5_000;
    const charged = callOf(true, { now: () => now });
    now += 1_234;
    await charged.call.charge({ tokens: 1 });
    expect(charged.committed.map((event) => event.latencyMs)).toEqual([1_234]);

    now = 5_000;
    const failed = callOf(false, { now: () => now });
    now += 17;
    failed.call.finish(404);
    expect(failed.records.map((event) => event.latencyMs)).toEqual([17]);

    now = 5_000;
    const streamed = callOf(true, { now: () => now });
    const end = streamed.call.streams("POST /v1/search (stream)");
    now += 90;
    streamed.call.finish(200);
    await end({ status: 200, tokens: 3, at: new Date(5_000 + 4_000) });
    expect(streamed.committed.map((event) => event.latencyMs)).toEqual([4_000]);
  });

  test("a charge that cannot be written fails the call, which is then recorded once, under the same event id, with no tokens", async () => {
    const { call, records } = callOf(true, { commitFails: true });
    await expect(call.charge({ tokens: 42 })).rejects.toThrow("the database is away");
    call.finish(503);
    expect(records.map((r) => [r.status, r.tokens, r.eventId])).toEqual([[503, 0, call.eventId]]);
  });

  test("a failed call records no tokens", () => {
    const { call, records } = callOf(true);
    call.finish(504);
    expect(records.map((r) => [r.status, r.tokens])).toEqual([[504, 0]]);
  });

  test("a call that is not billable records none, and may not be charged or start a stream", async () => {
    const { call, records } = callOf(false);
    await expect(call.charge({ tokens: 1 })).rejects.toThrow("GET /v1/account is not documented as billable");
    expect(() => call.streams("GET /v1/account (stream)")).toThrow("not documented as billable");
    call.finish(200);
    expect(records.map((r) => [r.route, r.tokens])).toEqual([["GET /v1/account", 0]]);
  });

  test("a billable call that succeeds uncharged is recorded, and logged as an error", () => {
    const { call, records, lines } = callOf(true);
    call.finish(200);
    expect(records).toHaveLength(1);
    expect(lines.some((l) => l.includes("a billable call succeeded without handing over its usage"))).toBe(true);
  });

  test("a stream commits its own usage when it ends, under its own name, and the face can wait for it; the response's end records nothing", async () => {
    const { call, records, committed } = callOf(true);
    const ended = call.streams("POST /v1/search (stream)");
    expect(call.streams("POST /v1/search (stream)")).toBe(ended);
    call.finish(200);
    expect(records).toEqual([]);
    void ended({ status: 200, tokens: 9, at: new Date(2_000) });
    void ended({ status: 400, tokens: 0, at: new Date(3_000) });
    await call.written();
    expect(committed.map((r) => [r.route, r.status, r.tokens, r.at.getTime()])).toEqual([["POST /v1/search (stream)", 200, 9, 2_000]]);
    expect(records).toEqual([]);
  });

  test("a stream that failed queues its record, and a stream whose usage could not be written tells its face", async () => {
    const failed = callOf(true);
    void failed.call.streams("WS /v1/ws/search")({ status: 422, tokens: 0, at: new Date(2_000) });
    await failed.call.written();
    expect(failed.records.map((r) => [r.route, r.status])).toEqual([["WS /v1/ws/search", 422]]);
    const unwritten = callOf(true, { commitFails: true });
    void unwritten.call.streams("WS /v1/ws/search")({ status: 200, tokens: 5, at: new Date(2_000) });
    await expect(unwritten.call.written()).rejects.toThrow("the database is away");
  });

  test("its origin is who called from where, for limit-evasion detection", () => {
    expect(callOf(true).call.origin).toEqual({ caller, address: "203.0.113.9" });
  });
});
