import { expect, test } from "bun:test";
import { invalid, ServiceError } from "../../errors.ts";
import { faceOutcome } from "./outcome.ts";

test("one of our errors: the JSON status and body, and a stream text that ends with the code", () => {
  const outcome = faceOutcome(new ServiceError("deadline_exceeded", "the search did not finish within 1 minute"), "req_1");
  expect(outcome).toEqual({
    status: 504,
    code: "deadline_exceeded",
    message: "the search did not finish within 1 minute (deadline_exceeded)",
    body: { detail: "the search did not finish within 1 minute", error: "deadline_exceeded" },
    headers: {},
  });
});

test("a bad input: 422 validation_failed, its text the problems as the JSON detail lists them", () => {
  const outcome = faceOutcome(invalid(["body", "output_format", "a"], "Input should be one of the type names"), "req_2");
  expect(outcome.status).toBe(422);
  expect(outcome.code).toBe("validation_failed");
  expect(outcome.message).toBe("body.output_format.a: Input should be one of the type names");
  expect(outcome.body).toEqual({
    detail: [{ loc: ["body", "output_format", "a"], msg: "Input should be one of the type names", type: "value_error" }],
  });
});

test("anything else is our bug: a generic 500 naming the request id, the error kept for the log only", () => {
  const bug = new TypeError("cannot read properties of undefined (reading 'x') at /srv/app/src/engine.ts:12");
  const outcome = faceOutcome(bug, "req_3");
  expect(outcome.status).toBe(500);
  expect(outcome.code).toBe("internal_error");
  expect(outcome.message).toBe("internal error; quote request id req_3 when reporting it (internal_error)");
  expect(outcome.internal).toBe(bug);
  expect(JSON.stringify(outcome.body)).not.toContain("engine.ts");
});

test("an upstream's words on one of our errors are its cause: logged, never in the message or body", () => {
  const library = new Error("Invalid PDF structure SECRET");
  const outcome = faceOutcome(new ServiceError("pdf_unreadable", "the PDF could not be read", { cause: library }), "req_4");
  expect(outcome.status).toBe(502);
  expect(outcome.cause).toBe(library);
  expect(`${outcome.message} ${JSON.stringify(outcome.body)}`).not.toContain("SECRET");
});
