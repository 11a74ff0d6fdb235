/** Sign in and create an account: the only pages a signed-out visitor sees. */
import { useContext, useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { ErrorMessage } from "../components/ErrorMessage.tsx";
import { TextInput } from "../components/Field.tsx";
import { PageHeading } from "../components/PageHeading.tsx";
import type { Session } from "../model.ts";
import { BASE, Link, navigate } from "../router.tsx";
import { SessionContext } from "../session.ts";

function useAuthForm(path: string, next: string) {
  const { setSession } = useContext(SessionContext);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (body: Record<string, string>) => {
    setBusy(true);
    setError(null);
    try {
      const session = await api.post<Session>(path, body, { quietUnauthorized: true });
      setSession(session);
      navigate(next, { replace: true });
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };
  // A taken email (409) belongs to the email field as much as a malformed one (422).
  const fieldErrors = (name: string) =>
    error instanceof ApiError ? (name === "email" && error.status === 409 ? [error.message] : error.at(name)) : [];
  return { error, busy, submit, fieldErrors };
}

function withNext(href: string, next: string): string {
  return next === `${BASE}/usage` ? href : `${href}?next=${encodeURIComponent(next)}`;
}

export function SignInPage({ next }: { next: string }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const form = useAuthForm("/auth/signin", next);
  return (
    <section class="narrow">
      <PageHeading title="Sign in" />
      <form
        class="card stack"
        onSubmit={(e) => {
          e.preventDefault();
          void form.submit({ email, password });
        }}
      >
        <TextInput
          label="Email"
          type="email"
          autocomplete="username"
          required
          value={email}
          onValue={setEmail}
          errors={form.fieldErrors("email")}
        />
        <TextInput
          label="Password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onValue={setPassword}
          errors={form.fieldErrors("password")}
        />
        <ErrorMessage error={form.error} />
        <button type="submit" disabled={form.busy}>
          {form.busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
      <p>
        No account yet? <Link href={withNext(`${BASE}/signup`, next)}>Create an account</Link>
      </p>
    </section>
  );
}

export function SignUpPage({ next }: { next: string }) {
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const form = useAuthForm("/auth/signup", next);
  return (
    <section class="narrow">
      <PageHeading title="Create an account" />
      <form
        class="card stack"
        onSubmit={(e) => {
          e.preventDefault();
          const body: Record<string, string> = { email, password };
          if (name.trim()) body.name = name.trim();
          void form.submit(body);
        }}
      >
        <TextInput
          label="Name"
          hint="Optional: how your account is shown, e.g. as a publisher."
          autocomplete="organization"
          value={name}
          onValue={setName}
          errors={form.fieldErrors("name")}
        />
        <TextInput
          label="Email"
          type="email"
          autocomplete="email"
          required
          value={email}
          onValue={setEmail}
          errors={form.fieldErrors("email")}
        />
        <TextInput
          label="Password"
          type="password"
          autocomplete="new-password"
          hint="At least 10 characters."
          required
          value={password}
          onValue={setPassword}
          errors={form.fieldErrors("password")}
        />
        <ErrorMessage error={form.error} />
        <button type="submit" disabled={form.busy}>
          {form.busy ? "Creating the account…" : "Create account"}
        </button>
      </form>
      <p>
        Already have an account? <Link href={withNext(`${BASE}/signin`, next)}>Sign in</Link>
      </p>
    </section>
  );
}
