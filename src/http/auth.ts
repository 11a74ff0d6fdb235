/**
 * The only reader of X-API-Key. A plugin that every authenticated feature
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

export function authenticated(deps: AuthDeps) {
  return new Elysia().derive({ as: "scoped" }, async ({ request, set }) => {
    const meta = requestMeta(request);
    const caller = await authenticate(deps.accounts, request.headers.get("x-api-key"));
    meta.caller = caller;
    const outcome = await deps.limiter.check(caller.keyId, planFor(caller));
    Object.assign(set.headers, rateLimitHeaders(outcome, deps.accounts.clock.now()));
    if (!outcome.allowed) throw rateLimited(outcome);
    return { caller };
  });
}
