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

function callOf(billable: boolean) {
  const records: UsageEvent[] = [];
  const lines: string[] = [];
  const call = new Call({
    caller,
    address: "203.0.113.9",
    requestId: "req_call_test",
    route: billable ? "POST /v1/search" : "GET /v1/account",
    billable,
    usage: { record: (event) => void records.push(event) },
    now: () => 1_000,
    log: createLogger({ level: "debug", sink: (line) => lines.push(line) }),
  });
  return { call, records, lines };
}

describe("a call ends in exactly one usage record", () => {
  test("a billable call records the tokens it was charged, stamped by the service clock, once", () => {
    const { call, records } = callOf(true);
    call.ran({ apiId: 7 });
    call.charge({ tokens: 42 });
    call.finish(200);
    call.finish(200);
    expect(records).toEqual([
      { apiId: 7, caller, route: "POST /v1/search", status: 200, tokens: 42, requestId: "req_call_test", at: new Date(1_000) },
    ]);
  });

  test("a failed call records no tokens, whatever it was charged", () => {
    const { call, records } = callOf(true);
    call.charge({ tokens: 42 });
    call.finish(504);
    expect(records.map((r) => [r.status, r.tokens])).toEqual([[504, 0]]);
  });

  test("a call that is not billable records none, and may not be charged or start a stream", () => {
    const { call, records } = callOf(false);
    expect(() => call.charge({ tokens: 1 })).toThrow("GET /v1/account is not documented as billable");
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

  test("a stream records its own usage when it ends, under its own name; the response's end records nothing", () => {
    const { call, records } = callOf(true);
    const ended = call.streams("POST /v1/search (stream)");
    expect(call.streams("POST /v1/search (stream)")).toBe(ended);
    call.finish(200);
    expect(records).toEqual([]);
    ended({ status: 200, tokens: 9, at: new Date(2_000) });
    ended({ status: 400, tokens: 0, at: new Date(3_000) });
    expect(records.map((r) => [r.route, r.status, r.tokens, r.at.getTime()])).toEqual([["POST /v1/search (stream)", 200, 9, 2_000]]);
  });

  test("its origin is who called from where, for limit-evasion detection", () => {
    expect(callOf(true).call.origin).toEqual({ caller, address: "203.0.113.9" });
  });
});
