/**
 * The seconds left before a rate-limited call may be tried again, ticking
 * down once a second from the refusal's Retry-After; 0 for any other error.
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import { rateLimitOf } from "../rate-limit.ts";

export function useRetryCountdown(error: unknown): number {
  // The end is fixed when the refusal arrives, so every reader of the same error counts down to the same moment.
  const end = useMemo(() => {
    const refusal = rateLimitOf(error);
    return refusal ? Date.now() + refusal.retryAfter * 1000 : 0;
  }, [error]);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    setNow(Date.now());
    if (end === 0) return;
    const timer = setInterval(() => {
      const at = Date.now();
      setNow(at);
      if (at >= end) clearInterval(timer);
    }, 1000);
    return () => clearInterval(timer);
  }, [end]);
  return end === 0 ? 0 : Math.max(0, Math.ceil((end - now) / 1000));
}
