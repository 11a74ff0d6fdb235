import { expect, test } from "bun:test";
import { APICallError, RetryError } from "ai";
import { createLogger } from "../../log.ts";
import { classifyModelFailure, modelFailureNote } from "./failure.ts";

const apiError = (statusCode: number, message: string) => new APICallError({ message, url: "http://model.test/v1", requestBodyValues: {}, statusCode, responseBody: message, isRetryable: false });

test("provider failures become our codes, whatever the provider said", () => {
  expect(classifyModelFailure(apiError(401, "invalid x-api-key"))).toBe("model_auth_failed");
  expect(classifyModelFailure(apiError(403, "forbidden"))).toBe("model_auth_failed");
  expect(classifyModelFailure(apiError(429, "slow down"))).toBe("model_rate_limited");
  expect(classifyModelFailure(apiError(529, "overloaded"))).toBe("model_unavailable");
  expect(classifyModelFailure(new RetryError({ message: "retries", reason: "maxRetriesExceeded", errors: [apiError(503, "down")] }))).toBe("model_unavailable");
  expect(classifyModelFailure(new DOMException("late", "TimeoutError"))).toBe("model_timeout");
  expect(classifyModelFailure(new TypeError("x is undefined"))).toBe("model_failed");
});

test("the note holds our words; the provider's message goes only to the log", () => {
  const lines: string[] = [];
  const note = modelFailureNote(apiError(401, "invalid x-api-key SECRET-UPSTREAM-TEXT"), createLogger({ level: "info", sink: (l) => lines.push(l) }), "answer");
  expect(note).toBe("model_auth_failed: the model provider refused the service's credentials");
  expect(lines.join("\n")).toContain("SECRET-UPSTREAM-TEXT");
});
