/**
 * The only reader of X-API-Key (and of its WebSocket subprotocol and Bearer forms) and of
 * the dashboard's session cookie. A plugin that every authenticated feature
 * uses: it reads the credentials, asks the authenticator whose they are (401
 * otherwise), asks admission for a token from the caller's bucket (429
 * otherwise), and puts the rate-limit headers on the response, error or not.
 * Each authenticated request becomes a Call (call.ts), which its route
 * reads and hands its usage to.
 * Who a credential belongs to and which bucket pays are the features' answers
 * (accounts/, limits/), given in by buildApp.
 */
import { Elysia } from "elysia";
import { unauthorized } from "../errors.ts";
import { sameOrigin } from "./base-url.ts";
import type { Caller } from "../caller.ts";
import { clientAddress, type ClientAddressSettings } from "./client-address.ts";
import { readCookie, SESSION_COOKIE } from "./cookies.ts";
import { rateLimited, rateLimitHeaders, type RateDecision } from "./rate-limit-headers.ts";
import { queuedOn, requestMeta } from "./request-context.ts";
import { Call } from "./call.ts";
import { usageUnavailable, type UsageSink } from "../call-usage.ts";
import type { Logger } from "../log.ts";

export interface Authenticator {
  /** The caller behind an API key, or the 401: at once when it needs no lookup. */
  byKey(key: string): Caller | Promise<Caller>;
  /** The caller behind a dashboard session's cookie token whose CSRF token matches, or the 401. */
  bySession(token: string, csrf: string): Promise<Caller>;
}

export interface AuthDeps {
  authenticator: Authenticator;
  /** Where each call's usage record goes. */
  usage: UsageSink;
  /** Whether a route (method and pattern) is documented billable: read from the routes' own OpenAPI details. */
  billable(method: string, route: string): boolean;
  log: Logger;
  /** Spends one token of the bucket that pays for this call: at once when it needs no round trip. */
  admit(caller: Caller, path: string): RateDecision | Promise<RateDecision>;
  now(): number;
  publicBaseUrl: string | undefined;
  /** How the client's address is read (put on the request's meta for the routes that count it). Absent: the socket peer. */
  clientAddress?: ClientAddressSettings;
}

/** Browsers cannot set headers on a WebSocket: this subprotocol, followed by the key, carries it instead. */
export const KEY_SUBPROTOCOL = "x-api-key";
/** ... and this one, followed by the session's CSRF token, for a signed-in dashboard. */
export const CSRF_SUBPROTOCOL = "x-csrf-token";

function offeredSubprotocol(request: Request, name: string): string | null {
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return null;
  const protocols = (request.headers.get("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim());
  const at = protocols.indexOf(name);
  return at >= 0 ? (protocols[at + 1] ?? null) : null;
}

/** `Authorization: Bearer <key>`, as MCP clients and OpenAI's SDKs send a key. */
function bearerKey(request: Request): string | null {
  const value = request.headers.get("authorization");
  return value ? (/^Bearer\s+(\S+)$/i.exec(value)?.[1] ?? null) : null;
}

/**
 * The key a request presents: the X-API-Key header, or for a WebSocket
 * upgrade the subprotocol pair `x-api-key, <key>` in Sec-WebSocket-Protocol.
 * The faces whose clients send `Authorization: Bearer <key>` (MCP, the
 * OpenAI-compatible routes) ask for that too: elsewhere only X-API-Key
 * carries a key, as the API's documents say.
 */
export function presentedKey(request: Request, bearer = false): string | null {
  return request.headers.get("x-api-key") ?? (bearer ? bearerKey(request) : null) ?? offeredSubprotocol(request, KEY_SUBPROTOCOL);
}

/**
 * A signed-in dashboard: the session cookie, and its CSRF token in the
 * X-CSRF-Token header (or the WebSocket subprotocol pair). A cross-site page
 * can make a browser send the cookie but cannot read or send the token, and
 * a foreign Origin is refused outright.
 */
function sessionCaller(deps: AuthDeps, request: Request): Promise<Caller> {
  const token = readCookie(request, SESSION_COOKIE);
  const csrf = request.headers.get("x-csrf-token") ?? offeredSubprotocol(request, CSRF_SUBPROTOCOL);
  if (!token || !csrf || !sameOrigin(request, deps.publicBaseUrl)) throw unauthorized();
  return deps.authenticator.bySession(token, csrf);
}

const givenAddress = (address: string | null) => () => address;

/**
 * When the key is cached and the bucket answers without a round trip (a lease with tokens, the in-memory store),
 * the derive runs through without waiting: the steps answer at once and nothing is awaited but the derive itself
 * (Elysia awaits a derive it cannot see is synchronous, so it stays async). A step that must wait is awaited.
 */
export function authenticated(deps: AuthDeps, options: { bearer?: boolean } = {}) {
  const addressSettings = deps.clientAddress ?? { trustProxy: false, header: undefined };
  const bearer = options.bearer === true;
  return new Elysia().derive({ as: "scoped" }, async ({ request, set, path, route, server }) => {
    const meta = requestMeta(request);
    const key = presentedKey(request, bearer);
    const asked = key !== null ? deps.authenticator.byKey(key) : sessionCaller(deps, request);
    const caller = asked instanceof Promise ? await asked : asked;
    meta.caller = caller;
    const billable = deps.billable(request.method, route);
    // A call whose usage cannot be written is refused before it runs, never answered unbilled. Nothing records the
    // refusal: recording is what is unavailable, and a flood of refusals must not grow what waits to be written.
    if (!deps.usage.accepting(billable)) throw usageUnavailable();
    const call = new Call({
      caller,
      address: meta.clientAddress !== undefined ? givenAddress(meta.clientAddress) : () => clientAddress(request, server, addressSettings),
      requestId: meta.id,
      span: () => meta.span,
      route: `${request.method} ${route}`,
      billable,
      usage: deps.usage,
      now: deps.now,
      log: deps.log,
      queued: queuedOn(meta),
    });
    // From here on the call is recorded, refused or not: the response's end finishes it (request-context.ts).
    meta.call = call;
    const admitted = deps.admit(caller, path);
    const outcome = admitted instanceof Promise ? await admitted : admitted;
    Object.assign(set.headers, rateLimitHeaders(outcome, deps.now()));
    if (!outcome.allowed) throw rateLimited(outcome);
    return { caller, call };
  });
}
