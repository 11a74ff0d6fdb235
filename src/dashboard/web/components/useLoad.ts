/**
 * Loads one thing for a page and can load it again. A newer load wins over
 * an older one still in flight, and a page that went away is not updated.
 * A 429 with a short Retry-After loads again when the wait is over (the
 * error shown meanwhile says how long).
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "../api.ts";

/** Rate-limited reads are tried again by themselves once the wait is short. */
const AUTO_RETRY_MAX_SECONDS = 15;

export interface Loaded<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  reload: () => void;
  set: (data: T) => void;
}

export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    const controller = new AbortController();
    let retry: ReturnType<typeof setTimeout> | undefined;
    setLoading(true);
    loadRef
      .current(controller.signal)
      .then((value) => {
        if (controller.signal.aborted) return;
        setData(value);
        setError(null);
        setLoading(false);
      })
      .catch((e: unknown) => {
        if (controller.signal.aborted) return;
        setError(e);
        setLoading(false);
        if (e instanceof ApiError && e.status === 429 && e.retryAfter !== null && e.retryAfter <= AUTO_RETRY_MAX_SECONDS) {
          retry = setTimeout(() => setRound((n) => n + 1), e.retryAfter * 1000);
        }
      });
    return () => {
      controller.abort();
      clearTimeout(retry);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { data, error, loading, reload, set: setData };
}
