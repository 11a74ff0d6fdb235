/** The form behind sign-in, sign-up and a sign-in link's claim: post, start the session, go on; or keep the error for the fields. */
import { useContext, useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
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
