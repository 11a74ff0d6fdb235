/**
 * The signed-in owner, shared by every page. The CSRF token lives in api.ts
 * (every call needs it); the rest of the session is here for the pages.
 */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import { setCsrfToken } from "./api.ts";
import type { Account, Session } from "./model.ts";

export interface SessionState {
  session: Session | null;
  setSession: (session: Session | null) => void;
  setAccount: (account: Account) => void;
}

export const SessionContext = createContext<SessionState>({ session: null, setSession: () => {}, setAccount: () => {} });

export function adoptSession(session: Session | null): void {
  setCsrfToken(session?.csrf_token ?? "");
}

/** For pages that only render signed in (the app redirects before they mount otherwise). */
export function useSession(): SessionState & { session: Session } {
  const state = useContext(SessionContext);
  if (!state.session) throw new Error("this page needs a session");
  return state as SessionState & { session: Session };
}
