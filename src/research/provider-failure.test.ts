import { describe, expect, test } from "bun:test";
import { ManualClock } from "../clock.ts";
import { CircuitBreaker } from "./breaker.ts";
import { providerFailureClass, providerFailureStatus } from "./provider-failure.ts";
import { StragglerCut } from "./quorum.ts";
import { ProviderError } from "./sources/source.ts";

describe("a provider failure's class", () => {
  test("the call's own timeout is a timeout", () => {
    expect(providerFailureClass(new DOMException("The operation timed out.", "TimeoutError"))).toBe("timeout");
  });

  test("our adapters' errors carry their kind, and an HTTP error its status", () => {
    const http = new ProviderError("brave", "answered HTTP 429", undefined, "http", 429);
    expect(providerFailureClass(http)).toBe("http");
    expect(providerFailureStatus(http)).toBe(429);
    expect(providerFailureClass(new ProviderError("searxng", "request failed (ECONNREFUSED)", undefined, "network"))).toBe("network");
    // An answer not in the provider's wire format is the default kind.
    const shape = new ProviderError("exa", "answered JSON of an unexpected shape");
    expect(providerFailureClass(shape)).toBe("invalid");
    expect(providerFailureStatus(shape)).toBeUndefined();
  });

  test("anything else, whatever its text, is other: no upstream words become a label", () => {
    expect(providerFailureClass(new Error("secret upstream text"))).toBe("other");
    expect(providerFailureClass(new DOMException("aborted", "AbortError"))).toBe("other");
    expect(providerFailureClass(new StragglerCut(100, 200))).toBe("other");
    expect(providerFailureClass("a string")).toBe("other");
  });
});

describe("a circuit breaker's state, as the gauge reads it", () => {
  test("closed, open after the threshold, half-open once the cooldown is over, closed after a good trial", () => {
    const clock = new ManualClock(0);
    const breaker = new CircuitBreaker(clock, 2, 1_000);
    expect(breaker.state()).toBe(0);
    breaker.failed();
    expect(breaker.state()).toBe(0);
    breaker.failed();
    expect(breaker.state()).toBe(2);
    expect(breaker.allow()).toBe(false);
    clock.advance(1_000);
    expect(breaker.state()).toBe(1);
    expect(breaker.allow()).toBe(true);
    breaker.succeeded();
    expect(breaker.state()).toBe(0);
  });
});
