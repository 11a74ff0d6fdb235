/**
 * One call a form or a button makes: busy while it runs (so it is not sent
 * twice), its failure kept for the page to show, with a 422's messages for
 * each field, and a status line saying how it went.
 */
import { useState } from "preact/hooks";
import { ApiError } from "../api.ts";

export interface Action {
  busy: boolean;
  error: unknown;
  status: string;
  /** A 422's messages for one field (its loc under the body). */
  issues: (path: string) => string[];
  /**
   * Runs `work`: busy until it ends, the last error cleared and the status set to `pending`.
   * A failure is kept and clears the status; the answer says whether the work succeeded.
   */
  run: (work: () => Promise<void>, pending?: string) => Promise<boolean>;
  setStatus: (text: string) => void;
  /** A failure the page finds before any call (a field it checks itself). */
  fail: (error: unknown) => void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState("");
  const fail = (failure: unknown) => {
    setError(failure);
    setStatus("");
  };
  const run = async (work: () => Promise<void>, pending = "") => {
    setBusy(true);
    setError(null);
    setStatus(pending);
    let ok = true;
    try {
      await work();
    } catch (failure) {
      fail(failure);
      ok = false;
    }
    setBusy(false);
    return ok;
  };
  const issues = (path: string) => (error instanceof ApiError ? error.at(path) : []);
  return { busy, error, status, issues, run, setStatus, fail };
}
