/**
 * The dashboard's server side: its page and assets, and the HTTP half of
 * sign-up, sign-in (also by a one-time link), sign-out and the session (the cookie, the origin check);
 * who may sign in is accounts/sign-in.ts. Everything else the page does goes
 * through the /v1 API itself, with the session cookie and its CSRF token, so
 * the page shows exactly what the API accepts and refuses.
 */
import { Elysia } from "elysia";
import { accountView, addCredit } from "../accounts/service.ts";
import { currentSession, signIn, signOut, signUp, type SignedIn, type SignInContext } from "../accounts/sign-in.ts";
import { notFound, ServiceError } from "../errors.ts";
import { authenticated, type AuthDeps } from "../http/auth.ts";
import { sameOrigin } from "../http/base-url.ts";
import { clientAddress, type ClientAddressSettings, type PeerSource } from "../http/client-address.ts";
import { readCookie, SESSION_COOKIE, sessionCookie } from "../http/cookies.ts";
import { sessionOnly } from "../http/openapi.ts";
import { AccountView } from "../accounts/model.ts";
import { ASSET_PREFIX, dashboardBundle, PAGE_HEADERS } from "./bundle.ts";
import { claimSignInLink } from "../accounts/sign-in-links.ts";
import { ClaimBody, CreditBody, Credentials, SessionView, SignUpBody } from "./model.ts";

export interface DashboardSettings {
  credit: boolean;
  clientAddress: ClientAddressSettings;
  publicBaseUrl: string | undefined;
}

/** The part of Elysia's `set` a session answer writes: its status and the cookie. */
type SessionSet = { status?: number | string; headers: Record<string, unknown> };

export function dashboardRoutes(auth: AuthDeps, identity: SignInContext, settings: DashboardSettings) {
  const secure = (request: Request) => request.url.startsWith("https:") || Boolean(settings.publicBaseUrl?.startsWith("https:"));
  const guardOrigin = (request: Request) => {
    if (!sameOrigin(request, settings.publicBaseUrl))
      throw new ServiceError("forbidden", "requests to sign in must come from this service's own pages");
  };
  const clientIp = (request: Request, server: PeerSource) => clientAddress(request, server, settings.clientAddress) ?? "unknown";
  /** The session body; a session just started also sets its cookie. */
  const sessionBody = (signedIn: SignedIn, request: Request, set: SessionSet) => {
    if (signedIn.session)
      set.headers["set-cookie"] = sessionCookie(signedIn.session.token, {
        maxAgeSeconds: Math.floor(identity.sessionLifetimeMs / 1000),
        secure: secure(request),
      });
    return { account: accountView(signedIn.account), email: signedIn.account.email, csrf_token: signedIn.csrfToken };
  };
  /** Signs up, signs in or claims a sign-in link (`verb`) for a request from this service's own pages, and answers with the session. */
  const startSession =
    <Input>(verb: (ctx: SignInContext, input: Input, clientAddress: string) => Promise<SignedIn>, status = 200) =>
    async ({ body, request, set, server }: { body: Input; request: Request; set: SessionSet; server: PeerSource }) => {
      guardOrigin(request);
      const signedIn = await verb(identity, body, clientIp(request, server));
      set.status = status;
      return sessionBody(signedIn, request, set);
    };
  const page = async () =>
    new Response((await dashboardBundle()).html, {
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", ...PAGE_HEADERS },
    });
  const tags = ["Dashboard"];

  const authRoutes = new Elysia({ prefix: "/auth" })
    .get(
      "/session",
      async ({ request, set }) => sessionBody(await currentSession(identity, readCookie(request, SESSION_COOKIE)), request, set),
      {
        response: { 200: SessionView },
        detail: sessionOnly({ tags, summary: "The signed-in owner's account and the session's CSRF token" }),
      },
    )
    .post("/signup", startSession(signUp, 201), {
      body: SignUpBody,
      response: { 201: SessionView },
      detail: { tags, summary: "Create an account with an email and a password, and sign in" },
    })
    .post("/signin", startSession(signIn), {
      body: Credentials,
      response: { 200: SessionView },
      detail: { tags, summary: "Sign in (limited to a few attempts a minute per address and per email)" },
    })
    .post("/claim", startSession(claimSignInLink), {
      body: ClaimBody,
      response: { 200: SessionView },
      detail: {
        tags,
        summary: "Use a one-time sign-in link: set the account's email and password, and sign in (the link then stops working)",
      },
    })
    .post(
      "/signout",
      async ({ request, set }) => {
        guardOrigin(request);
        await signOut(identity, readCookie(request, SESSION_COOKIE), request.headers.get("x-csrf-token"));
        set.headers["set-cookie"] = sessionCookie("", { maxAgeSeconds: 0, secure: secure(request) });
        set.status = 204;
        return "";
      },
      {
        detail: sessionOnly({
          tags,
          summary: "Sign out",
          responses: { "204": { description: "Signed out; the session cookie is cleared." } },
        }),
      },
    );

  const credit = new Elysia({ prefix: "/dashboard/api" }).use(authenticated(auth)).post(
    "/credit",
    async ({ caller, body }) => {
      if (!settings.credit) throw new ServiceError("forbidden", "adding credit from the dashboard is turned off on this deployment");
      if (!caller.sessionId) throw new ServiceError("forbidden", "credit is added from the dashboard, signed in");
      const account = await addCredit(identity, caller.accountId, body.amount);
      return accountView(account);
    },
    {
      body: CreditBody,
      response: { 200: AccountView },
      detail: sessionOnly({ tags, summary: "Add credit (a stand-in for payment; the same code as the CLI's credit add)" }),
    },
  );

  return (
    new Elysia()
      .use(authRoutes)
      .use(credit)
      // The root is where a person lands first (the first-start message, a browser): it leads to the dashboard.
      .get("/", ({ redirect }) => redirect("/dashboard", 302), { detail: { hide: true } })
      .get("/dashboard", page, { detail: { hide: true } })
      .get(
        "/dashboard/*",
        async ({ params }) => {
          const path = params["*"];
          if (!`/dashboard/${path}`.startsWith(ASSET_PREFIX)) return page();
          const asset = (await dashboardBundle()).assets.get(path.slice(ASSET_PREFIX.length - "/dashboard/".length));
          if (!asset) throw notFound("asset");
          return new Response(asset.body, {
            headers: { "content-type": asset.type, "cache-control": "public, max-age=31536000, immutable", ...PAGE_HEADERS },
          });
        },
        { detail: { hide: true } },
      )
  );
}
