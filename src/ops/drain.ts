/**
 * Shutdown, as the callers of a draining instance see it. First the grace:
 * /readyz answers 503 so the balancer stops routing here, while new calls
 * are still served (each response closing its connection, so none is
 * reused once the instance stops accepting). Then the instance stops
 * accepting (main.ts closes the listener: a balancer retries a refused
 * connection elsewhere), and a straggler that still reaches it is a 503
 * `draining` with Retry-After, while the calls and streams already running
 * finish. /healthz answers throughout.
 */
import { Elysia } from "elysia";
import { ServiceError } from "../errors.ts";

const ANSWERED_WHILE_DRAINING = new Set(["/readyz", "/healthz"]);

export interface DrainState {
  /** Shutdown has begun: not ready, and responses close their connections. */
  draining(): boolean;
  /** The grace is over: new calls are refused. */
  refusing(): boolean;
}

export function drainGate(state: DrainState) {
  return new Elysia({ name: "drain-gate" }).onRequest(({ request, set }) => {
    if (!state.draining()) return;
    set.headers.connection = "close";
    if (!state.refusing() || ANSWERED_WHILE_DRAINING.has(new URL(request.url).pathname)) return;
    throw new ServiceError("draining", "this instance is shutting down, try again in 1 second", { retryAfterSeconds: 1 });
  });
}
