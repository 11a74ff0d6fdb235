/**
 * A model provider's failure in our own words. The provider's message can
 * name our credentials, our account or its internals ("invalid x-api-key"),
 * so it goes to the log, never to a caller; the caller reads a stable code
 * and a sentence. Classification reads the AI SDK's error classes (an
 * APICallError's status) and, for errors a provider sends inside a stream,
 * the provider's own error type: never the wording of a message.
 */
import type * as Sdk from "ai";
import type { Logger } from "../../log.ts";

/**
 * The AI SDK (some 20 MB resident) is loaded with a configured model (wiring.ts), not by a server that
 * answers extractively. What is classified here came out of it, so by then it is loaded and this is a
 * lookup.
 */
const sdk = (): typeof Sdk => require("ai");

export type ModelFailure =
  | "model_auth_failed"
  | "model_rate_limited"
  | "model_unavailable"
  | "model_timeout"
  | "model_output_invalid"
  | "model_failed";

const WORDS: Record<ModelFailure, string> = {
  model_auth_failed: "the model provider refused the service's credentials",
  model_rate_limited: "the model provider is rate limiting the service",
  model_unavailable: "the model provider is unavailable",
  model_timeout: "the model provider did not answer in time",
  model_output_invalid: "the model's answer could not be read",
  model_failed: "the model call failed",
};

/**
 * Error types providers put in the body of a failed stream (Anthropic's
 * `event: error`, an OpenAI-compatible chunk with `error`): the AI SDK hands
 * these over as plain objects, not as APICallErrors.
 */
const STREAM_ERROR_TYPES: Record<string, ModelFailure> = {
  authentication_error: "model_auth_failed",
  permission_error: "model_auth_failed",
  invalid_api_key: "model_auth_failed",
  rate_limit_error: "model_rate_limited",
  rate_limit_exceeded: "model_rate_limited",
  insufficient_quota: "model_rate_limited",
  overloaded_error: "model_unavailable",
  api_error: "model_unavailable",
  server_error: "model_unavailable",
  timeout_error: "model_timeout",
};

function byStatus(status: number): ModelFailure {
  if (status === 401 || status === 403) return "model_auth_failed";
  if (status === 429) return "model_rate_limited";
  if (status === 408 || status === 504) return "model_timeout";
  if (status >= 500) return "model_unavailable";
  // A 2xx the SDK could not use: the provider answered, but not in its format.
  if (status >= 200 && status < 300) return "model_output_invalid";
  return "model_failed";
}

function streamErrorType(error: unknown): ModelFailure | undefined {
  if (typeof error !== "object" || error === null || error instanceof Error) return undefined;
  const { type, code } = error as { type?: unknown; code?: unknown };
  for (const name of [code, type]) if (typeof name === "string" && STREAM_ERROR_TYPES[name]) return STREAM_ERROR_TYPES[name];
  return undefined;
}

export function classifyModelFailure(error: unknown): ModelFailure {
  const {
    APICallError,
    EmptyResponseBodyError,
    InvalidResponseDataError,
    JSONParseError,
    LoadAPIKeyError,
    NoContentGeneratedError,
    NoObjectGeneratedError,
    NoOutputGeneratedError,
    RetryError,
    TypeValidationError,
  } = sdk();
  if (RetryError.isInstance(error)) return classifyModelFailure(error.lastError);
  if (LoadAPIKeyError.isInstance(error)) return "model_auth_failed";
  if (APICallError.isInstance(error)) return error.statusCode === undefined ? "model_unavailable" : byStatus(error.statusCode);
  if (error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError")) return "model_timeout";
  if (
    NoObjectGeneratedError.isInstance(error) ||
    NoOutputGeneratedError.isInstance(error) ||
    NoContentGeneratedError.isInstance(error) ||
    EmptyResponseBodyError.isInstance(error) ||
    InvalidResponseDataError.isInstance(error) ||
    JSONParseError.isInstance(error) ||
    TypeValidationError.isInstance(error)
  ) {
    return "model_output_invalid";
  }
  return streamErrorType(error) ?? "model_failed";
}

export function modelFailureWords(code: ModelFailure): string {
  return WORDS[code];
}

/**
 * Classifies a failure and logs the original: `log` is the run's logger,
 * which carries the request id. `where` names the step (plan, answer, a graph node).
 */
export function modelFailure(error: unknown, log: Logger, where: string): ModelFailure {
  const code = classifyModelFailure(error);
  log.warn("model call failed", { where, code, error, ...answered(error) });
  return code;
}

/** What the provider answered, for the log: its status and the start of its body (a garbled answer's only trace). */
function answered(error: unknown): { status?: number; body?: string } {
  const { APICallError, RetryError } = sdk();
  const call = RetryError.isInstance(error) ? error.lastError : error;
  if (!APICallError.isInstance(call)) return {};
  return {
    ...(call.statusCode !== undefined ? { status: call.statusCode } : {}),
    ...(call.responseBody ? { body: call.responseBody.slice(0, 300) } : {}),
  };
}

/** `code: sentence` for a note a caller reads; the original goes to the log. */
export function modelFailureNote(error: unknown, log: Logger, where: string): string {
  const code = modelFailure(error, log, where);
  return `${code}: ${WORDS[code]}`;
}
