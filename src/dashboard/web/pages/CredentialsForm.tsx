/**
 * The email and password form behind sign-in, sign-up and a sign-in link's
 * claim: post, start the session, go on; or keep the error for the fields.
 */
import type { ComponentChildren } from "preact";
import { useContext, useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { ErrorMessage } from "../components/ErrorMessage.tsx";
import { TextInput } from "../components/Field.tsx";
import { SubmitButton } from "../components/SubmitButton.tsx";
import type { Session } from "../model.ts";
import { navigate } from "../router.tsx";
import { SessionContext } from "../session.ts";

export function useAuthForm(path: string, next: string) {
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

export type AuthForm = ReturnType<typeof useAuthForm>;

interface CredentialsFormProps {
  form: AuthForm;
  /** Signing in to an account (the browser fills the saved password), or choosing a password for one. */
  password: "current" | "new";
  /** How the browser fills the email: as the account's user name, or as a new address. */
  emailAutocomplete: "username" | "email";
  /** Fields the page adds to the body (a name, a link's token). */
  extra?: Record<string, string>;
  submitLabel: string;
  busyLabel: string;
  /** The error the form's alert shows; the form's own by default. */
  alert?: unknown;
  /** The page's own fields, before the email. */
  children?: ComponentChildren;
}

export function CredentialsForm({
  form,
  password: kind,
  emailAutocomplete,
  extra,
  submitLabel,
  busyLabel,
  alert = form.error,
  children,
}: CredentialsFormProps) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  return (
    <form
      class="card stack"
      onSubmit={(e) => {
        e.preventDefault();
        void form.submit({ email, password, ...extra });
      }}
    >
      {children}
      <TextInput
        label="Email"
        type="email"
        autocomplete={emailAutocomplete}
        required
        value={email}
        onValue={setEmail}
        errors={form.fieldErrors("email")}
      />
      <TextInput
        label="Password"
        type="password"
        autocomplete={`${kind}-password`}
        hint={kind === "new" ? "At least 10 characters." : undefined}
        required
        value={password}
        onValue={setPassword}
        errors={form.fieldErrors("password")}
      />
      <ErrorMessage error={alert} />
      <SubmitButton busy={form.busy} busyLabel={busyLabel}>
        {submitLabel}
      </SubmitButton>
    </form>
  );
}
