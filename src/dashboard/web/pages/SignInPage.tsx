/** Sign in and create an account: the only pages a signed-out visitor sees. */
import { useState } from "preact/hooks";
import { ErrorMessage } from "../components/ErrorMessage.tsx";
import { TextInput } from "../components/Field.tsx";
import { PageHeading } from "../components/PageHeading.tsx";
import { BASE, Link } from "../router.tsx";
import { useAuthForm } from "./auth-form.ts";

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
