/**
 * How every web search provider is called and answered. Provider hosts come
 * from configuration, so this folder calls the global fetch directly (the one
 * exception to the egress rule). The caller's signal rides on the request and
 * on the body; the body is capped; every failure that is not the caller's
 * abort becomes a ProviderError with a short message. Keys travel in headers
 * only, and no message quotes a header, a URL or a provider's body, so a key
 * cannot leak through an error.
 */
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { finishHits } from "./hits.ts";
import { ProviderError, type SearchHit, type SearchOptions } from "./source.ts";

/** Search answers are tens of kilobytes; anything far bigger is not one. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface ProviderCall {
  provider: string;
  url: URL;
  signal: AbortSignal;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  /** Sent as JSON. */
  json?: unknown;
  /**
   * Keyless providers may follow redirects. Keyed ones must not: fetch keeps
   * custom headers (X-Subscription-Token, x-api-key) across origins.
   */
  followRedirects?: boolean;
}

/** The envelope most providers answer in: the results in one list. */
export const ResultList = Type.Object({ results: Type.Array(Type.Unknown()) });

/** A text field a provider may leave out or send as null. */
export const OptionalText = Type.Optional(Type.Union([Type.String(), Type.Null()]));

/**
 * How a provider's answer reads: one item's shape and the item as a hit; and
 * unless the answer is a ResultList, its envelope and where the items are in it.
 */
export type ProviderAnswer<Envelope extends TSchema, Item extends TSchema> =
  | { item: Item; hit: (item: Static<Item>) => SearchHit }
  | { item: Item; hit: (item: Static<Item>) => SearchHit; envelope: Envelope; items: (answer: Static<Envelope>) => unknown[] };

/**
 * Calls a provider and reads its answer as hits: the envelope checked
 * (expectShape), the items that fit (fittingItems) made hits, and finishHits
 * applied for the caller.
 */
export async function fetchHits<Item extends TSchema, Envelope extends TSchema = typeof ResultList>(
  call: ProviderCall,
  answer: ProviderAnswer<Envelope, Item>,
  options: SearchOptions,
): Promise<SearchHit[]> {
  // The provider-call span's trace context goes with the call (a provider is a party the operator chose, not any site).
  const body = await fetchJson(options.traceparent ? { ...call, headers: { ...call.headers, traceparent: options.traceparent } } : call);
  const items =
    "envelope" in answer
      ? answer.items(expectShape(call.provider, answer.envelope, body))
      : expectShape(call.provider, ResultList, body).results;
  const hits = fittingItems(call.provider, answer.item, items).map((item) => answer.hit(item));
  return finishHits(hits, options);
}

/** `path` under the base URL, keeping any path the base has (a SearXNG behind /searxng/). */
export function endpoint(baseUrl: string, path: string): URL {
  return new URL(path, baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`);
}

/** A short, key-free name for a network failure (ECONNREFUSED, TypeError…). */
function failureName(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "string" && /^[A-Za-z_]{2,40}$/.test(code)) return code;
  return error instanceof Error ? error.name : "unknown";
}

export async function fetchJson(call: ProviderCall): Promise<unknown> {
  const { provider, signal } = call;
  signal.throwIfAborted();
  let response: Response;
  try {
    // A Headers object, so a caller's "Accept" replaces the default rather than joining it;
    // built inside the try, so a key with a newline is a ProviderError too.
    const headers = new Headers({ accept: "application/json" });
    if (call.json !== undefined) headers.set("content-type", "application/json");
    for (const [name, value] of Object.entries(call.headers ?? {})) headers.set(name, value);
    response = await fetch(call.url, {
      method: call.method ?? "GET",
      headers,
      body: call.json === undefined ? undefined : JSON.stringify(call.json),
      redirect: call.followRedirects ? "follow" : "manual",
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw new ProviderError(provider, `request failed (${failureName(error)})`, undefined, "network");
  }
  if (!response.ok) {
    void response.body?.cancel().catch(() => {});
    throw new ProviderError(provider, `answered HTTP ${response.status}`, undefined, "http", response.status);
  }
  const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  // An HTML or XML page with a 200 is a proxy's or a login page, never an answer: not worth reading.
  if (/html|xml/.test(type)) {
    void response.body?.cancel().catch(() => {});
    // Named in our words: the header's text is the provider's, and callers read this message.
    throw new ProviderError(
      provider,
      `answered ${type.includes("html") ? "HTML" : "XML"} instead of JSON`,
      `content-type: ${type.slice(0, 200)}`,
    );
  }
  const text = await readBody(provider, response, signal);
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError(provider, "answered a body that is not JSON");
  }
}

/** Reads the body up to the cap; an abort cancels the body at once, whatever the runtime does with the signal. */
async function readBody(provider: string, response: Response, signal: AbortSignal): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  signal.addEventListener("abort", cancel, { once: true });
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      signal.throwIfAborted();
      if (done) break;
      total += value.byteLength;
      if (total > MAX_BODY_BYTES) throw new ProviderError(provider, `answered more than ${MAX_BODY_BYTES >> 20} MB`);
      chunks.push(value);
    }
  } catch (error) {
    cancel();
    if (signal.aborted) throw signal.reason;
    if (error instanceof ProviderError) throw error;
    throw new ProviderError(provider, `body broke off (${failureName(error)})`, undefined, "network");
  } finally {
    signal.removeEventListener("abort", cancel);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** The answer's envelope, checked against its schema, or a ProviderError. */
export function expectShape<T extends TSchema>(provider: string, schema: T, value: unknown): Static<T> {
  if (!Value.Check(schema, value)) throw new ProviderError(provider, "answered JSON of an unexpected shape");
  return value as Static<T>;
}

/**
 * The result items that fit their schema. One odd item (an engine's infobox,
 * a result without a URL) is dropped; a list where no item fits means the
 * format changed, which is an error rather than "no results".
 */
export function fittingItems<T extends TSchema>(provider: string, schema: T, items: unknown[]): Static<T>[] {
  const fitting = items.filter((item): item is Static<T> => Value.Check(schema, item));
  if (items.length > 0 && fitting.length === 0) throw new ProviderError(provider, "answered results of an unexpected shape");
  return fitting;
}
