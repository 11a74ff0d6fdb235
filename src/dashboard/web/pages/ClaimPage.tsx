/**
 * Where a one-time sign-in link lands (`/dashboard/claim#<token>`): the
 * owner of an account made without an email or password (the first start's
 * `local`) sets both, and is signed in. The token is in the fragment, which
 * the browser never sends anywhere; the page takes it off the address bar at
 * once and posts it in a JSON body.
 */
import { useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { PageHeading } from "../components/PageHeading.tsx";
import { BASE, Link } from "../router.tsx";
import { CredentialsForm, useAuthForm } from "./CredentialsForm.tsx";

const NEW_LINK = "npm run cli -- accounts sign-in-link --account";

/**
 * How to get a new link, in words: the operator's command with the account's
 * id when the refusal named it (a link that was real), else with where the
 * operator finds the id. Said here rather than the API's sentence, which is
 * written for an API caller.
 */
function NewLinkAdvice({ accountId }: { accountId: string | null }) {
  return accountId ? (
    <>
      <p>Ask the operator of this service for a new link. They make one with:</p>
      <pre class="code">
        <code>{`${NEW_LINK} ${accountId}`}</code>
      </pre>
    </>
  ) : (
    <p>
      Ask the operator of this service for a new link. They make one with <code>{`${NEW_LINK} <account id>`}</code>, and find the account's
      id with <code>npm run cli -- accounts list</code>.
    </p>
  );
}

/** The page's own words for a refused link (401): what happened, and the two ways on. */
function RefusedLink({ error }: { error: ApiError }) {
  const accountId = typeof error.fields.account_id === "string" ? error.fields.account_id : null;
  return (
    <div class="error-box refused-link" role="alert">
      <p>This sign-in link no longer works: it was already used, has expired (links last 15 minutes), or is incomplete.</p>
      <p>
        If you already chose an email and password with it, <Link href={`${BASE}/signin`}>sign in</Link> with them.
      </p>
      <NewLinkAdvice accountId={accountId} />
    </div>
  );
}

/** The token, removed from the address (and so from history and bookmarks): until used it is as good as a password. */
function takeToken(): string {
  const token = location.hash.slice(1);
  if (token) history.replaceState(history.state, "", location.pathname + location.search);
  return token;
}

export function ClaimPage() {
  const [token] = useState(takeToken);
  const form = useAuthForm("/auth/claim", `${BASE}/usage`);
  const refused = form.error instanceof ApiError && form.error.status === 401 ? form.error : null;

  if (!token)
    return (
      <section class="narrow">
        <PageHeading title="Set up your sign-in" />
        <p>
          This page needs the whole sign-in link, as it was printed (with the part after <code>#</code>). A link works once and for 15
          minutes.
        </p>
        <NewLinkAdvice accountId={null} />
      </section>
    );

  return (
    <section class="narrow">
      <PageHeading title="Set up your sign-in" />
      <p>Choose the email and password you will sign in to the dashboard with. This link then stops working.</p>
      {refused ? <RefusedLink error={refused} /> : null}
      {/* A taken email (409) is said on the email field only; a refused link (401) in the page's own words above. */}
      <CredentialsForm
        form={form}
        emailAutocomplete="username"
        password="new"
        extra={{ token }}
        submitLabel="Save and sign in"
        busyLabel="Saving…"
        alert={form.error instanceof ApiError && (form.error.status === 409 || refused) ? null : form.error}
      />
    </section>
  );
}
