/**
 * While the process drains for shutdown it keeps listening, so a proxy and
 * its callers see why: /readyz answers 503 (draining), /healthz stays up, and
 * every new request is a 503 `draining` with Retry-After, while the requests
 * and streams already running finish.
 */
import { Elysia } from "elysia";
import { ServiceError } from "../errors.ts";

const ANSWERED_WHILE_DRAINING = new Set(["/readyz", "/healthz"]);

export function drainGate(draining: () => boolean) {
  return new Elysia({ name: "drain-gate" }).onRequest(({ request }) => {
    if (!draining()) return;
    if (ANSWERED_WHILE_DRAINING.has(new URL(request.url).pathname)) return;
    throw new ServiceError("draining", "this instance is shutting down, try again in 1 second", { retryAfterSeconds: 1 });
  });
}
