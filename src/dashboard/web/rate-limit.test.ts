import { describe, expect, test } from "bun:test";
import { ApiError } from "./api.ts";
import { limitWords, rateLimitOf, retryWords } from "./rate-limit.ts";

const planRefusal = () =>
  new ApiError(429, "rate limited, try again in 42 seconds", "rate_limited", [], 42, {
    detail: "rate limited, try again in 42 seconds",
    error: "rate_limited",
    plan: "free",
    limit_per_minute: 10,
    retry_after_seconds: 42,
  });

describe("a 429 in words", () => {
  test("a plan's limit names the plan, its calls a minute and the wait", () => {
    const refusal = rateLimitOf(planRefusal())!;
    expect(refusal).toEqual({ plan: "Free", perMinute: 10, detail: "rate limited, try again in 42 seconds", retryAfter: 42 });
    expect(`${limitWords(refusal)} ${retryWords(refusal.retryAfter)}`).toBe(
      "Rate limit reached: your Free plan allows 10 calls a minute. Try again in 42 s.",
    );
  });

  test("without Retry-After the body's retry_after_seconds is the wait", () => {
    const error = new ApiError(429, "rate limited", "rate_limited", [], null, { plan: "pro", limit_per_minute: 1, retry_after_seconds: 7 });
    const refusal = rateLimitOf(error)!;
    expect(refusal.retryAfter).toBe(7);
    expect(limitWords(refusal)).toBe("Rate limit reached: your Pro plan allows 1 call a minute.");
  });

  test("a limit that is not the plan's keeps its own words, without the wait it already said", () => {
    const error = new ApiError(429, "at most 5 open search sockets per key", "rate_limited", [], 5, {});
    expect(limitWords(rateLimitOf(error)!)).toBe("Rate limit reached: at most 5 open search sockets per key.");
  });

  test("other failures are not rate limits", () => {
    expect(rateLimitOf(new ApiError(422, "Some fields need attention.", "validation_error"))).toBeNull();
    expect(rateLimitOf(new Error("boom"))).toBeNull();
  });

  test("the wait counts down to a prompt to try again", () => {
    expect(retryWords(41.2)).toBe("Try again in 42 s.");
    expect(retryWords(0)).toBe("You can try again now.");
  });
});
