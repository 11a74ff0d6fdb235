/**
 * A search provider, as the engine sees it: one small interface, one file
 * per provider. Providers return hits (URL, title, snippet); the engine reads
 * the pages itself. Domain lists are given to the provider so it can apply
 * them natively where its API allows; the engine filters the results again.
 */
import type { SourceScope } from "../../contents/source-scope.ts";

export interface SearchHit {
  url: string;
  title: string;
  snippet: string;
  /** ISO 8601 when the provider knows it. */
  publishedAt?: string | null;
}

export interface SearchOptions {
  limit: number;
  signal: AbortSignal;
  whitelist?: SourceScope | null;
  blacklist?: SourceScope | null;
  /**
   * The W3C `traceparent` of the call's span, sent as a header by providers
   * called over HTTP (the trace goes on into a provider that traces); absent
   * when tracing is off.
   */
  traceparent?: string;
}

/** A keyed provider's settings: its API key, and an address other than its own (a proxy, a test peer) where one is given. */
export interface KeyedSettings {
  apiKey: string;
  baseUrl?: string;
}

export interface SearchSource {
  /** Stable name, as in SEARCH_PROVIDERS and in `info.providers`. */
  readonly name: string;
  search(query: string, options: SearchOptions): Promise<SearchHit[]>;
}

/**
 * How a provider call failed, for metrics and spans: an HTTP error status,
 * no answer (refused, reset, a body broken off), an answer that is not its
 * wire format, or something else.
 */
export type ProviderFailureKind = "http" | "network" | "invalid" | "other";

/**
 * A provider answered something that is not its wire format: an error, never
 * a crash. The message is ours (callers read it in `info.providers`);
 * `detail` is what the provider sent, for the log only; `kind` and `status`
 * (an HTTP error's) are what an operator's metrics and spans read.
 */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    readonly detail?: string,
    readonly kind: ProviderFailureKind = "invalid",
    readonly status?: number,
  ) {
    super(`${provider}: ${message}`);
    this.name = "ProviderError";
  }
}
