import { describe, expect, test } from "bun:test";
import { takeToken, takeTokens, type BucketState } from "./bucket.ts";

const free = { capacity: 10, refillPerSecond: 10 / 60 };

describe("the token bucket", () => {
  test("a new bucket is full: exactly `capacity` takes succeed at one instant", () => {
    let state: BucketState | undefined;
    const results = [];
    for (let i = 0; i < 12; i++) {
      const step = takeToken(state, 1_000, free);
      state = step.state;
      results.push(step.decision.allowed);
    }
    expect(results.filter(Boolean).length).toBe(10);
    expect(results.slice(10)).toEqual([false, false]);
  });

  test("refills continuously: one free token every 6 seconds", () => {
    let state: BucketState | undefined;
    for (let i = 0; i < 10; i++) state = takeToken(state, 0, free).state;
    const refused = takeToken(state, 0, free).decision;
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 6_000, resetMs: 60_000 });
    expect(takeToken(state, 5_999, free).decision.allowed).toBe(false);
    expect(takeToken(state, 6_000, free).decision.allowed).toBe(true);
  });

  test("never exceeds capacity however long it rests", () => {
    const state = takeToken(undefined, 0, free).state;
    expect(takeToken(state, 10 * 60_000, free).decision.remaining).toBe(9);
  });

  test("a clock that moves backwards never adds tokens", () => {
    let state: BucketState | undefined;
    for (let i = 0; i < 10; i++) state = takeToken(state, 50_000, free).state;
    const back = takeToken(state, 10_000, free);
    expect(back.decision.allowed).toBe(false);
    expect(back.state.updatedAt).toBe(50_000);
  });

  test("a take of several (a lease) grants what is asked, or all whole tokens held, never more", () => {
    const first = takeTokens(undefined, 0, free, 4);
    expect(first.grant).toEqual({ granted: 4, remaining: 6, retryAfterMs: 0, resetMs: 24_000 });
    const second = takeTokens(first.state, 0, free, 100);
    expect(second.grant).toMatchObject({ granted: 6, remaining: 0 });
    expect(takeTokens(second.state, 5_999, free, 3).grant).toEqual({ granted: 0, remaining: 0, retryAfterMs: 1, resetMs: 60_000 - 5_999 });
    expect(takeTokens(second.state, 12_000, free, 3).grant.granted).toBe(2);
  });
});
