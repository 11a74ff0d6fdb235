import { expect, test } from "bun:test";
import { APICallError, JSONParseError, NoOutputGeneratedError, RetryError } from "ai";
import { createLogger } from "../../log.ts";
import { classifyModelFailure, modelFailureNote } from "./failure.ts";

const apiError = (statusCode: number, message: string) =>
  new APICallError({ message, url: "http://model.test/v1", requestBodyValues: {}, statusCode, responseBody: message, isRetryable: false });

test("provider failures become our codes, whatever the provider said", () => {
  expect(classifyModelFailure(apiError(401, "invalid x-api-key"))).toBe("model_auth_failed");
  expect(classifyModelFailure(apiError(403, "forbidden"))).toBe("model_auth_failed");
  expect(classifyModelFailure(apiError(429, "slow down"))).toBe("model_rate_limited");
  expect(classifyModelFailure(apiError(529, "overloaded"))).toBe("model_unavailable");
  expect(classifyModelFailure(apiError(504, "gateway timeout"))).toBe("model_timeout");
  expect(classifyModelFailure(apiError(404, "no such model"))).toBe("model_failed");
  expect(classifyModelFailure(new RetryError({ message: "retries", reason: "maxRetriesExceeded", errors: [apiError(503, "down")] }))).toBe(
    "model_unavailable",
  );
  expect(classifyModelFailure(new DOMException("late", "TimeoutError"))).toBe("model_timeout");
  expect(classifyModelFailure(new TypeError("x is undefined"))).toBe("model_failed");
});

test("an answer the SDK could not read is model_output_invalid: a 200 that is not JSON, a stream without an end", () => {
  const garbage = new APICallError({
    message: "Invalid JSON response",
    url: "http://model.test/v1",
    requestBodyValues: {},
    statusCode: 200,
    responseBody: "<html>",
    cause: new JSONParseError({ text: "<html>", cause: new Error("bad") }),
  });
  expect(classifyModelFailure(garbage)).toBe("model_output_invalid");
  expect(classifyModelFailure(new NoOutputGeneratedError({ message: "no output" }))).toBe("model_output_invalid");
});

test("errors a provider sends inside a stream are classified by their type, not their message", () => {
  // Anthropic's `event: error` and an OpenAI-compatible chunk holding `error` reach us as plain objects.
  expect(classifyModelFailure({ type: "overloaded_error", message: "Overloaded" })).toBe("model_unavailable");
  expect(classifyModelFailure({ type: "rate_limit_error", message: "slow down" })).toBe("model_rate_limited");
  expect(classifyModelFailure({ type: "authentication_error", message: "invalid x-api-key" })).toBe("model_auth_failed");
  expect(classifyModelFailure({ message: "Incorrect API key", type: "invalid_request_error", code: "invalid_api_key" })).toBe(
    "model_auth_failed",
  );
  expect(classifyModelFailure({ message: "boom", type: "server_error" })).toBe("model_unavailable");
  expect(classifyModelFailure({ message: "rate limited", type: "unavailable" })).toBe("model_failed");
});

test("the note holds our words; the provider's message goes only to the log, with the run's request id", () => {
  const lines: string[] = [];
  const log = createLogger({ level: "info", sink: (l) => lines.push(l) }).child({ request_id: "req_test" });
  const note = modelFailureNote(apiError(401, "invalid x-api-key SECRET-UPSTREAM-TEXT"), log, "answer");
  expect(note).toBe("model_auth_failed: the model provider refused the service's credentials");
  expect(lines.length).toBe(1);
  expect(JSON.parse(lines[0]!)).toMatchObject({
    level: "warn",
    msg: "model call failed",
    request_id: "req_test",
    where: "answer",
    code: "model_auth_failed",
  });
  expect(lines[0]).toContain("SECRET-UPSTREAM-TEXT");
});
