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
import { BASE } from "../router.tsx";
import { CredentialsForm, useAuthForm } from "./CredentialsForm.tsx";

const NEW_LINK = "npm run cli -- accounts sign-in-link --account ID";

/** The token, removed from the address (and so from history and bookmarks): until used it is as good as a password. */
function takeToken(): string {
  const token = location.hash.slice(1);
  if (token) history.replaceState(history.state, "", location.pathname + location.search);
  return token;
}

export function ClaimPage() {
  const [token] = useState(takeToken);
  const form = useAuthForm("/auth/claim", `${BASE}/usage`);

  if (!token)
    return (
      <section class="narrow">
        <PageHeading title="Set up your sign-in" />
        <p>
          This page needs the whole sign-in link, as it was printed (with the part after <code>#</code>). A link works once and for 15
          minutes; the operator can make a new one with <code>{NEW_LINK}</code>.
        </p>
      </section>
    );

  return (
    <section class="narrow">
      <PageHeading title="Set up your sign-in" />
      <p>Choose the email and password you will sign in to the dashboard with. This link then stops working.</p>
      {/* A taken email (409) is said on the email field only. */}
      <CredentialsForm
        form={form}
        emailAutocomplete="username"
        password="new"
        extra={{ token }}
        submitLabel="Save and sign in"
        busyLabel="Saving…"
        alert={form.error instanceof ApiError && form.error.status === 409 ? null : form.error}
      />
    </section>
  );
}
