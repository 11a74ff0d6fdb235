/**
 * The only reader of X-API-Key (and of its WebSocket subprotocol form). A plugin that every authenticated feature
 * uses: it finds the caller (401 otherwise), takes a token from the key's
 * bucket (429 otherwise), and puts the rate-limit headers on the response,
 * error or not.
 */
import { Elysia } from "elysia";
import { authenticate, type AccountsContext } from "../accounts/service.ts";
import type { RateLimiter } from "../limits/limiter.ts";
import { planFor } from "../limits/plans.ts";
import { rateLimited, rateLimitHeaders } from "./rate-limit-headers.ts";
import { requestMeta } from "./request-context.ts";

export interface AuthDeps {
  accounts: AccountsContext;
  limiter: RateLimiter;
}

/** Browsers cannot set headers on a WebSocket: this subprotocol, followed by the key, carries it instead. */
export const KEY_SUBPROTOCOL = "x-api-key";

/**
 * The key a request presents: the X-API-Key header, or for a WebSocket
 * upgrade the subprotocol pair `x-api-key, <key>` in Sec-WebSocket-Protocol.
 */
export function presentedKey(request: Request): string | null {
  const header = request.headers.get("x-api-key");
  if (header !== null) return header;
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return null;
  const protocols = (request.headers.get("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim());
  const at = protocols.indexOf(KEY_SUBPROTOCOL);
  return at >= 0 ? (protocols[at + 1] ?? null) : null;
}

export function authenticated(deps: AuthDeps) {
  return new Elysia().derive({ as: "scoped" }, async ({ request, set }) => {
    const meta = requestMeta(request);
    const caller = await authenticate(deps.accounts, presentedKey(request));
    meta.caller = caller;
    const outcome = await deps.limiter.check(caller.keyId, planFor(caller));
    Object.assign(set.headers, rateLimitHeaders(outcome, deps.accounts.clock.now()));
    if (!outcome.allowed) throw rateLimited(outcome);
    return { caller };
  });
}
