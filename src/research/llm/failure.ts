/**
 * A model provider's failure in our own words. The provider's message can
 * name our credentials, our account or its internals ("invalid x-api-key"),
 * so it goes to the log, never to a caller; the caller reads a stable code
 * and a sentence.
 */
import { APICallError, JSONParseError, LoadAPIKeyError, NoObjectGeneratedError, RetryError, TypeValidationError } from "ai";
import type { Logger } from "../../log.ts";

export type ModelFailure = "model_auth_failed" | "model_rate_limited" | "model_unavailable" | "model_timeout" | "model_output_invalid" | "model_failed";

const WORDS: Record<ModelFailure, string> = {
  model_auth_failed: "the model provider refused the service's credentials",
  model_rate_limited: "the model provider is rate limiting the service",
  model_unavailable: "the model provider is unavailable",
  model_timeout: "the model provider did not answer in time",
  model_output_invalid: "the model's answer could not be read",
  model_failed: "the model call failed",
};

export function classifyModelFailure(error: unknown): ModelFailure {
  if (RetryError.isInstance(error)) return classifyModelFailure(error.lastError);
  if (LoadAPIKeyError.isInstance(error)) return "model_auth_failed";
  if (APICallError.isInstance(error)) {
    const status = error.statusCode ?? 0;
    if (status === 401 || status === 403) return "model_auth_failed";
    if (status === 429) return "model_rate_limited";
    if (status === 408) return "model_timeout";
    if (status >= 500) return "model_unavailable";
    return "model_failed";
  }
  if (error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError")) return "model_timeout";
  if (NoObjectGeneratedError.isInstance(error) || JSONParseError.isInstance(error) || TypeValidationError.isInstance(error)) return "model_output_invalid";
  return "model_failed";
}

/** `code: sentence` for a note a caller reads; the original goes to the log. */
export function modelFailureNote(error: unknown, log: Logger, where: string): string {
  const code = classifyModelFailure(error);
  log.warn("model call failed", { where, code, error });
  return `${code}: ${WORDS[code]}`;
}
