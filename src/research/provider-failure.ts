/**
 * Why a provider call failed, as a word from a bounded set: the class that
 * provider_failures_total counts and a provider.search span carries. Never
 * the provider's own text (that is for the log, with the run's request id).
 */
import { ProviderError } from "./sources/source.ts";

export type ProviderFailureClass = "timeout" | "http" | "network" | "invalid" | "breaker_open" | "other";

export function providerFailureClass(error: unknown): ProviderFailureClass {
  // The call's own timeout (AbortSignal.timeout) rejects with its TimeoutError, as fetch and the adapters rethrow it.
  if (error instanceof DOMException && error.name === "TimeoutError") return "timeout";
  if (error instanceof ProviderError) return error.kind;
  return "other";
}

/** The HTTP status a provider answered, when the failure was one. */
export function providerFailureStatus(error: unknown): number | undefined {
  return error instanceof ProviderError ? error.status : undefined;
}
