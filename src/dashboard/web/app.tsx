/**
 * The owners' dashboard: loads the session, then shows the page the URL
 * names. Signed-out visitors are sent to sign in and brought back after.
 */
import { render } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, ApiError, isSuspension, whenSignedOut, whenSuspended } from "./api.ts";
import { ErrorMessage } from "./components/ErrorMessage.tsx";
import { Header } from "./components/Header.tsx";
import { PageHeading } from "./components/PageHeading.tsx";
import type { Account, Session } from "./model.ts";
import { ClaimPage } from "./pages/ClaimPage.tsx";
import { DeliveryPage } from "./pages/DeliveryPage.tsx";
import { EndpointPage } from "./pages/EndpointPage.tsx";
import { EndpointsPage } from "./pages/EndpointsPage.tsx";
import { KeysPage } from "./pages/KeysPage.tsx";
import { ListingPage } from "./pages/ListingPage.tsx";
import { MarketplacePage } from "./pages/MarketplacePage.tsx";
import { MonitorPage } from "./pages/MonitorPage.tsx";
import { MonitorsPage } from "./pages/MonitorsPage.tsx";
import { NotFoundPage } from "./pages/NotFoundPage.tsx";
import { PlaygroundPage } from "./pages/PlaygroundPage.tsx";
import { SignInPage, SignUpPage } from "./pages/SignInPage.tsx";
import { TaskPage } from "./pages/TaskPage.tsx";
import { TasksPage } from "./pages/TasksPage.tsx";
import { UsagePage } from "./pages/UsagePage.tsx";
import { WebhooksPage } from "./pages/WebhooksPage.tsx";
import { BASE, Link, match, Redirect, usePlace, type Place } from "./router.tsx";
import { adoptSession, SessionContext, type SessionState } from "./session.ts";

type Loaded =
  | { status: "loading" }
  | { status: "failed"; error: unknown }
  | { status: "ready"; session: Session | null }
  /** The owner's account is suspended or banned: the error carries the operator's reason. */
  | { status: "suspended"; error: ApiError };

const HOME = `${BASE}/usage`;

function signedInPage(place: Place) {
  const path = place.path;
  if (path === BASE) return <Redirect to={HOME} />;
  if (path === `${BASE}/usage`) return <UsagePage search={place.search} />;
  if (path === `${BASE}/keys`) return <KeysPage />;
  if (path === `${BASE}/playground`) return <PlaygroundPage />;
  if (path === `${BASE}/endpoints`) return <EndpointsPage />;
  if (path === `${BASE}/marketplace`) return <MarketplacePage search={place.search} />;
  if (path === `${BASE}/tasks`) return <TasksPage />;
  if (path === `${BASE}/monitors`) return <MonitorsPage />;
  if (path === `${BASE}/webhooks`) return <WebhooksPage />;
  const endpoint = match(`${BASE}/endpoints/:id`, path);
  // Endpoint ids are integers; any other segment names no endpoint.
  if (endpoint && /^[1-9]\d{0,9}$/.test(endpoint.id!)) return <EndpointPage key={endpoint.id} apiId={Number(endpoint.id)} />;
  const listing = match(`${BASE}/marketplace/:stub`, path);
  if (listing) return <ListingPage key={listing.stub} publicStub={listing.stub!} />;
  const task = match(`${BASE}/tasks/:id`, path);
  if (task) return <TaskPage key={task.id} taskId={task.id!} />;
  const monitor = match(`${BASE}/monitors/:id`, path);
  if (monitor) return <MonitorPage key={monitor.id} monitorId={monitor.id!} />;
  const delivery = match(`${BASE}/webhooks/deliveries/:id`, path);
  if (delivery) return <DeliveryPage key={delivery.id} deliveryId={delivery.id!} />;
  return <NotFoundPage />;
}

/** Only same-dashboard paths are followed after sign-in, never another site. */
function safeNext(search: URLSearchParams): string {
  const next = search.get("next") ?? "";
  return next.startsWith(`${BASE}/`) && !next.startsWith("//") && !next.includes("/signin") && !next.includes("/signup") ? next : HOME;
}

const isAuthPage = (path: string) => path === `${BASE}/signin` || path === `${BASE}/signup`;

/** In place of every page while the account is suspended or banned: why, and the ways on. */
function Suspended({ error, onRetry }: { error: ApiError; onRetry: () => void }) {
  return (
    <section class="narrow">
      <PageHeading title="This account cannot be used" />
      <ErrorMessage error={error} />
      <p>
        Its API keys and dashboard sessions are refused until the operator of this service reinstates it. Once reinstated, try again; or{" "}
        <Link href={`${BASE}/signin`}>sign in with another account</Link>.
      </p>
      <button type="button" onClick={onRetry}>
        Try again
      </button>
    </section>
  );
}

function Page({ place, session }: { place: Place; session: Session | null }) {
  // A one-time sign-in link: shown signed in or not (it signs in as the link's account).
  if (place.path === `${BASE}/claim`) return <ClaimPage />;
  const isSignIn = place.path === `${BASE}/signin`;
  const isSignUp = place.path === `${BASE}/signup`;
  if (isSignIn || isSignUp) {
    if (session) return <Redirect to={safeNext(place.search)} />;
    return isSignIn ? <SignInPage next={safeNext(place.search)} /> : <SignUpPage next={safeNext(place.search)} />;
  }
  if (!session) {
    const here = place.path + (place.search.toString() ? `?${place.search}` : "");
    return <Redirect to={place.path === BASE ? `${BASE}/signin` : `${BASE}/signin?next=${encodeURIComponent(here)}`} />;
  }
  return signedInPage(place);
}

function App() {
  const place = usePlace();
  const [loaded, setLoaded] = useState<Loaded>({ status: "loading" });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    api
      .get<Session>("/auth/session", { quietUnauthorized: true })
      .then((session) => {
        adoptSession(session);
        if (live) setLoaded({ status: "ready", session });
      })
      .catch((error: unknown) => {
        if (!live) return;
        if (error instanceof ApiError && error.status === 401) setLoaded({ status: "ready", session: null });
        else if (isSuspension(error)) setLoaded({ status: "suspended", error });
        else setLoaded({ status: "failed", error });
      });
    return () => {
      live = false;
    };
  }, [attempt]);

  const state = useMemo<SessionState>(() => {
    const session = loaded.status === "ready" ? loaded.session : null;
    const setSession = (next: Session | null) => {
      adoptSession(next);
      setLoaded({ status: "ready", session: next });
    };
    return {
      session,
      setSession,
      setAccount: (account: Account) => session && setSession({ ...session, account }),
    };
  }, [loaded]);

  useEffect(() => whenSignedOut(() => state.setSession(null)), [state]);
  useEffect(() => whenSuspended((error) => setLoaded({ status: "suspended", error })), []);

  // After an in-app navigation, start keyboard and screen-reader users at the new page's heading.
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    document.getElementById("page-heading")?.focus();
  }, [place.path]);

  return (
    <SessionContext.Provider value={state}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <Header path={place.path} />
      <main id="main" tabIndex={-1}>
        {loaded.status === "loading" ? (
          <p role="status">Loading…</p>
        ) : loaded.status === "failed" ? (
          <>
            <h1>The dashboard could not start</h1>
            <ErrorMessage error={loaded.error} />
            <button type="button" onClick={() => setAttempt((n) => n + 1)}>
              Try again
            </button>
          </>
        ) : loaded.status === "suspended" && !isAuthPage(place.path) ? (
          <Suspended error={loaded.error} onRetry={() => setAttempt((n) => n + 1)} />
        ) : (
          <Page place={place} session={loaded.status === "ready" ? loaded.session : null} />
        )}
      </main>
    </SessionContext.Provider>
  );
}

render(<App />, document.getElementById("app")!);
