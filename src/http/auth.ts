/**
 * The only reader of X-API-Key (and of its WebSocket subprotocol form) and of dashboard sessions. A plugin that every authenticated feature
 * uses: it finds the caller (401 otherwise), takes a token from the key's
 * bucket (429 otherwise), and puts the rate-limit headers on the response,
 * error or not.
 */
import { Elysia } from "elysia";
import { timingSafeEqual } from "node:crypto";
import { bucketOf, type Caller } from "../accounts/caller.ts";
import { authenticate, unauthorized, type AccountsContext } from "../accounts/service.ts";
import { findSession, readCookie, SESSION_COOKIE } from "../dashboard/sessions.ts";
import { sameOrigin } from "./base-url.ts";
import type { RateLimiter } from "../limits/limiter.ts";
import { planFor, type Plan } from "../limits/plans.ts";
import { rateLimited, rateLimitHeaders } from "./rate-limit-headers.ts";
import { requestMeta } from "./request-context.ts";

export interface AuthDeps {
  accounts: AccountsContext;
  limiter: RateLimiter;
  publicBaseUrl: string | undefined;
  /** Calls a minute a signed-in dashboard may make outside research (browsing and editing its own things). */
  dashboardPerMinute: number;
}

/** Calls that do research (and cost money): a dashboard session spends its plan's bucket on these, as a key does. */
const RESEARCH = /^\/v1\/(search|ws\/search|contents|user-defined-service\/|published-service\/)/;

/**
 * The bucket and plan a call is counted against. A key: its own bucket at
 * its plan's limit. A dashboard session: research shares one bucket per
 * account at the plan's limit; everything else the page does (listing keys,
 * reading usage, editing endpoints) has its own allowance, so a Free owner
 * can use the dashboard without running out of calls by looking around.
 */
function allowance(deps: AuthDeps, caller: Caller, path: string): { bucket: string; plan: Plan } {
  const plan = planFor(caller);
  if (!caller.sessionId || RESEARCH.test(path)) return { bucket: bucketOf(caller), plan };
  return { bucket: `dashboard:${caller.accountId}`, plan: { ...plan, perMinute: Math.max(plan.perMinute, deps.dashboardPerMinute) } };
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

/**
 * The key a request presents: the X-API-Key header, or for a WebSocket
 * upgrade the subprotocol pair `x-api-key, <key>` in Sec-WebSocket-Protocol.
 */
export function presentedKey(request: Request): string | null {
  return request.headers.get("x-api-key") ?? offeredSubprotocol(request, KEY_SUBPROTOCOL);
}

const sameToken = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * A signed-in dashboard: the session cookie, and its CSRF token in the
 * X-CSRF-Token header (or the WebSocket subprotocol pair). A cross-site page
 * can make a browser send the cookie but cannot read or send the token, and
 * a foreign Origin is refused outright.
 */
async function sessionCaller(deps: AuthDeps, request: Request): Promise<Caller> {
  const token = readCookie(request, SESSION_COOKIE);
  const csrf = request.headers.get("x-csrf-token") ?? offeredSubprotocol(request, CSRF_SUBPROTOCOL);
  if (!token || !csrf || !sameOrigin(request, deps.publicBaseUrl)) throw unauthorized();
  const found = await findSession(deps.accounts.db, deps.accounts.clock, token, deps.accounts.warn);
  if (!found || !sameToken(csrf, found.session.csrfToken)) throw unauthorized();
  return {
    accountId: found.account.id,
    accountName: found.account.name,
    keyId: null,
    keyPrefix: null,
    sessionId: found.session.id,
    balanceMicros: found.account.balanceMicros,
    customRateLimit: found.account.customRateLimit,
  };
}

export function authenticated(deps: AuthDeps) {
  return new Elysia().derive({ as: "scoped" }, async ({ request, set, path }) => {
    const meta = requestMeta(request);
    const key = presentedKey(request);
    const caller = key !== null ? await authenticate(deps.accounts, key) : await sessionCaller(deps, request);
    meta.caller = caller;
    const { bucket, plan } = allowance(deps, caller, path);
    const outcome = await deps.limiter.check(bucket, plan);
    Object.assign(set.headers, rateLimitHeaders(outcome, deps.accounts.clock.now()));
    if (!outcome.allowed) throw rateLimited(outcome);
    return { caller };
  });
}
