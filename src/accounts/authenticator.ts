/**
 * Identity for the auth plugin: http/auth.ts reads the credentials off a
 * request (a key, or a session cookie with its CSRF token) and asks this who
 * they belong to. One 401 for every way a credential can be wrong.
 */
import { accountCaller } from "./account-caller.ts";
import type { Authenticator } from "../http/auth.ts";
import type { Caller } from "../caller.ts";
import { sameHash } from "./keys.ts";
import { unauthorized } from "../errors.ts";
import { authenticate } from "./service.ts";
import type { AccountsContext } from "./context.ts";
import { findSession } from "./sessions.ts";
import { assertInGoodStanding } from "./standing.ts";

export function accountsAuthenticator(ctx: AccountsContext): Authenticator {
  return {
    byKey: (key) => authenticate(ctx, key),
    async bySession(token, csrf): Promise<Caller> {
      const found = await findSession(ctx, token);
      if (!found || !sameHash(csrf, found.session.csrfToken)) throw unauthorized();
      assertInGoodStanding(found.account);
      return accountCaller(found.account, null, found.session.id);
    },
  };
}
