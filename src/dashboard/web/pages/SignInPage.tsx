/** Sign in and create an account: the only pages a signed-out visitor sees. */
import { useState } from "preact/hooks";
import { TextInput } from "../components/Field.tsx";
import { PageHeading } from "../components/PageHeading.tsx";
import { BASE, Link } from "../router.tsx";
import { CredentialsForm, useAuthForm } from "./CredentialsForm.tsx";

function withNext(href: string, next: string): string {
  return next === `${BASE}/usage` ? href : `${href}?next=${encodeURIComponent(next)}`;
}

export function SignInPage({ next }: { next: string }) {
  const form = useAuthForm("/auth/signin", next);
  return (
    <section class="narrow">
      <PageHeading title="Sign in" />
      <CredentialsForm form={form} emailAutocomplete="username" password="current" submitLabel="Sign in" busyLabel="Signing in…" />
      <p>
        No account yet? <Link href={withNext(`${BASE}/signup`, next)}>Create an account</Link>
      </p>
    </section>
  );
}

export function SignUpPage({ next }: { next: string }) {
  const [name, setName] = useState("");
  const form = useAuthForm("/auth/signup", next);
  return (
    <section class="narrow">
      <PageHeading title="Create an account" />
      <CredentialsForm
        form={form}
        emailAutocomplete="email"
        password="new"
        extra={name.trim() ? { name: name.trim() } : {}}
        submitLabel="Create account"
        busyLabel="Creating the account…"
      >
        <TextInput
          label="Name"
          hint="Optional: how your account is shown, e.g. as a publisher."
          autocomplete="organization"
          value={name}
          onValue={setName}
          errors={form.fieldErrors("name")}
        />
      </CredentialsForm>
      <p>
        Already have an account? <Link href={withNext(`${BASE}/signin`, next)}>Sign in</Link>
      </p>
    </section>
  );
}
