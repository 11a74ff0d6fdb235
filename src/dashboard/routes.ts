/**
 * The dashboard's server side: its page and assets, and sign-up, sign-in,
 * sign-out and the session. Everything else the page does goes through
 * the /v1 API itself, with the session cookie and its CSRF token, so the
 * page shows exactly what the API accepts and refuses.
 */
import { Elysia, t } from "elysia";
import * as accountQueries from "../accounts/queries.ts";
import { AccountView } from "../accounts/model.ts";
import { accountView, addCredit } from "../accounts/service.ts";
import { sameHash } from "../accounts/keys.ts";
import { notFound, ServiceError } from "../errors.ts";
import { authenticated, type AuthDeps } from "../http/auth.ts";
import { sameOrigin } from "../http/base-url.ts";
import { sessionOnly } from "../http/openapi.ts";
import { requestMeta } from "../http/request-context.ts";
import { waitWords } from "../http/wait-words.ts";
import type { Plan } from "../limits/plans.ts";
import { signIn, signUp } from "./accounts.ts";
import { ASSET_PREFIX, dashboardBundle, PAGE_HEADERS } from "./bundle.ts";
import { endSession, findSession, readCookie, SESSION_COOKIE, sessionCookie, startSession } from "./sessions.ts";

export interface DashboardSettings {
  sessionDays: number;
  credit: boolean;
  clientIpHeader: string | undefined;
  signupsPerMinute: number;
  signinsPerMinute: number;
  publicBaseUrl: string | undefined;
}

// Sign-in attempts are limited like calls, in buckets of their own (never slowed by peak load).
const attempts = (perMinute: number): Plan => ({ name: "pro", label: "sign-in attempts", perMinute });

const SessionView = t.Object({
  account: AccountView,
  email: t.Nullable(t.String()),
  csrf_token: t.String({ description: "Send it back in X-CSRF-Token with every call that uses the session." }),
});

const Credentials = t.Object({ email: t.String({ maxLength: 254 }), password: t.String({ maxLength: 200 }) });

export function dashboardRoutes(auth: AuthDeps, settings: DashboardSettings) {
  const { db, clock, warn } = auth.accounts;
  const lifetimeMs = settings.sessionDays * 86_400_000;
  const secure = (request: Request) => request.url.startsWith("https:") || Boolean(settings.publicBaseUrl?.startsWith("https:"));

  const guardOrigin = (request: Request) => {
    if (!sameOrigin(request, settings.publicBaseUrl)) throw new ServiceError("forbidden", "requests to sign in must come from this service's own pages");
  };
  const limit = async (key: string, perMinute: number) => {
    const outcome = await auth.limiter.check(key, attempts(perMinute));
    if (!outcome.allowed) {
      const seconds = Math.max(1, Math.ceil(outcome.retryAfterMs / 1000));
      throw new ServiceError("rate_limited", `too many sign-in attempts, try again in ${waitWords(seconds)}`, { retryAfterSeconds: seconds });
    }
  };
  const clientIp = (request: Request, server: { requestIP(r: Request): { address: string } | null } | null) =>
    (settings.clientIpHeader && request.headers.get(settings.clientIpHeader)?.split(",")[0]?.trim()) || server?.requestIP(request)?.address || "unknown";

  const sessionBody = (account: accountQueries.AccountRow, csrfToken: string) => ({ account: accountView(account), email: account.email, csrf_token: csrfToken });
  const begin = async (account: accountQueries.AccountRow, request: Request, set: { headers: Record<string, unknown> }) => {
    const session = await startSession(db, clock, account.id, lifetimeMs);
    set.headers["set-cookie"] = sessionCookie(session.token, { maxAgeSeconds: Math.floor(lifetimeMs / 1000), secure: secure(request) });
    return sessionBody(account, session.csrfToken);
  };
  const page = async () => new Response((await dashboardBundle()).html, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", ...PAGE_HEADERS } });
  const tags = ["Dashboard"];

  const authRoutes = new Elysia({ prefix: "/auth" })
    .get(
      "/session",
      async ({ request }) => {
        const token = readCookie(request, SESSION_COOKIE);
        const found = token ? await findSession(db, clock, token, warn) : null;
        if (!found) throw new ServiceError("unauthorized", "not signed in");
        return sessionBody(found.account, found.session.csrfToken);
      },
      { response: { 200: SessionView }, detail: sessionOnly({ tags, summary: "The signed-in owner's account and the session's CSRF token" }) },
    )
    .post(
      "/signup",
      async ({ body, request, set, server }) => {
        guardOrigin(request);
        await limit(`signup:${clientIp(request, server)}`, settings.signupsPerMinute);
        const account = await signUp(auth.accounts, body);
        set.status = 201;
        return begin(account, request, set);
      },
      {
        body: t.Object({ email: t.String({ maxLength: 254 }), password: t.String({ maxLength: 200 }), name: t.Optional(t.Nullable(t.String({ maxLength: 200 }))) }),
        response: { 201: SessionView },
        detail: { tags, summary: "Create an account with an email and a password, and sign in" },
      },
    )
    .post(
      "/signin",
      async ({ body, request, set, server }) => {
        guardOrigin(request);
        await limit(`signin:ip:${clientIp(request, server)}`, settings.signinsPerMinute);
        await limit(`signin:email:${body.email.trim().toLowerCase()}`, Math.max(5, Math.floor(settings.signinsPerMinute / 4)));
        const account = await signIn(auth.accounts, body);
        if (!account) throw new ServiceError("unauthorized", "wrong email or password");
        return begin(account, request, set);
      },
      { body: Credentials, response: { 200: SessionView }, detail: { tags, summary: "Sign in (limited to a few attempts a minute per address and per email)" } },
    )
    .post(
      "/signout",
      async ({ request, set }) => {
        guardOrigin(request);
        const token = readCookie(request, SESSION_COOKIE);
        const found = token ? await findSession(db, clock, token, warn) : null;
        // Signing out needs the CSRF token too: another site must not be able to sign a user out.
        if (found && sameHash(request.headers.get("x-csrf-token") ?? "", found.session.csrfToken)) await endSession(db, token!);
        else if (found) throw new ServiceError("unauthorized", "missing or invalid CSRF token");
        set.headers["set-cookie"] = sessionCookie("", { maxAgeSeconds: 0, secure: secure(request) });
        set.status = 204;
        return "";
      },
      { detail: sessionOnly({ tags, summary: "Sign out", responses: { "204": { description: "Signed out; the session cookie is cleared." } } }) },
    );

  const credit = new Elysia({ prefix: "/dashboard/api" }).use(authenticated(auth)).post(
    "/credit",
    async ({ caller, body, request }) => {
      if (!settings.credit) throw new ServiceError("forbidden", "adding credit from the dashboard is turned off on this deployment");
      if (!caller.sessionId) throw new ServiceError("forbidden", "credit is added from the dashboard, signed in");
      const account = await addCredit(auth.accounts, caller.accountId, body.amount);
      requestMeta(request).tokens = 0;
      return accountView(account);
    },
    { body: t.Object({ amount: t.Number({ exclusiveMinimum: 0, maximum: 1_000 }) }), response: { 200: AccountView }, detail: sessionOnly({ tags, summary: "Add credit (a stand-in for payment; the same code as the CLI's credit add)" }) },
  );

  return new Elysia()
    .use(authRoutes)
    .use(credit)
    .get("/dashboard", page, { detail: { hide: true } })
    .get("/dashboard/*", async ({ params }) => {
      const path = params["*"];
      if (!`/dashboard/${path}`.startsWith(ASSET_PREFIX)) return page();
      const asset = (await dashboardBundle()).assets.get(path.slice(ASSET_PREFIX.length - "/dashboard/".length));
      if (!asset) throw notFound("asset");
      return new Response(asset.body, { headers: { "content-type": asset.type, "cache-control": "public, max-age=31536000, immutable", ...PAGE_HEADERS } });
    }, { detail: { hide: true } });
}
