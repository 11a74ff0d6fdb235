/**
 * Delivering one webhook message: signed with the account's secret (and
 * the previous one within a rotation's grace), POSTed through the egress
 * guard (the URL's name resolved and every address judged at each attempt,
 * no redirect followed), each attempt recorded. A 2xx answer delivers it;
 * anything else is tried again later (RETRY_FACTOR times longer each time,
 * at most MAX_DELAY_MS apart) until its retry window closes (24 hours).
 * What a receiver says is never read, so its error text cannot reach a log
 * or the deliveries list: an attempt's error is in our words.
 */
import type { Clock } from "../clock.ts";
import type { SafeFetch } from "../contents/egress/safe-fetch.ts";
import type { Database } from "../../db/client.ts";
import { ServiceError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { deliveryById, findSecret, recordAttempt, type DeliveryRow } from "./queries.ts";
import { signedHeaders } from "./signing.ts";

const RETRY_FACTOR = 5;
const MAX_DELAY_MS = 3 * 3_600_000;

export interface DeliverySettings {
  /** The wait before the second attempt, in milliseconds; each later wait is RETRY_FACTOR times the one before. */
  retryBaseMs: number;
  /** How long the receiver has to answer one attempt. */
  timeoutMs: number;
  userAgent: string;
}

export interface DeliverDeps {
  db: Database;
  clock: Clock;
  log: Logger;
  fetcher: SafeFetch;
  settings: DeliverySettings;
  /** Queues the delivery's next attempt at `at`. */
  retry(deliveryId: string, at: Date): Promise<void>;
}

/** The wait after attempt `n` (1-based) failed. */
export function retryDelayMs(base: number, n: number): number {
  return Math.min(base * RETRY_FACTOR ** (n - 1), MAX_DELAY_MS);
}

/** One attempt of the delivery, if it is still pending. */
export async function attemptDelivery(deps: DeliverDeps, deliveryId: string, signal: AbortSignal): Promise<void> {
  const delivery = await deliveryById(deps.db, deliveryId);
  if (delivery?.status !== "pending") return;
  const secret = await findSecret(deps.db, delivery.accountId);
  if (!secret) return; // a message is only made once its account has a secret (service.ts): nothing to sign with is a bug's aftermath
  const at = new Date(deps.clock.now());
  const secrets = [
    secret.secret,
    ...(secret.previousSecret && secret.previousUntil && secret.previousUntil > at ? [secret.previousSecret] : []),
  ];
  const headers = {
    ...signedHeaders(secrets, delivery.id, at, delivery.payload),
    "content-type": "application/json",
    "user-agent": deps.settings.userAgent,
  };
  const started = performance.now();
  let status: number | null = null;
  let error: string | null = null;
  try {
    status = await deps.fetcher.post(new URL(delivery.url), delivery.payload, { headers, timeoutMs: deps.settings.timeoutMs, signal });
    if (status < 200 || status >= 300)
      error =
        status >= 300 && status < 400 ? `the receiver answered ${status} (redirects are not followed)` : `the receiver answered ${status}`;
  } catch (failure) {
    if (signal.aborted) throw failure; // this instance is stopping: the job is tried again elsewhere
    error = attemptError(failure);
  }
  const latencyMs = Math.round(performance.now() - started);
  await settle(deps, delivery, { at, status, latencyMs, error });
}

async function settle(
  deps: DeliverDeps,
  delivery: DeliveryRow,
  attempt: { at: Date; status: number | null; latencyMs: number; error: string | null },
): Promise<void> {
  if (attempt.error === null) {
    await recordAttempt(deps.db, delivery, attempt, { status: "delivered", nextAttemptAt: null, deliveredAt: attempt.at });
    return;
  }
  const next = new Date(attempt.at.getTime() + retryDelayMs(deps.settings.retryBaseMs, delivery.attempts + 1));
  const more = next <= delivery.retryUntil;
  await recordAttempt(deps.db, delivery, attempt, {
    status: more ? "pending" : "failed",
    nextAttemptAt: more ? next : null,
    deliveredAt: null,
  });
  deps.log.info("a webhook delivery failed", {
    delivery_id: delivery.id,
    account_id: delivery.accountId,
    status: attempt.status,
    reason: attempt.error,
    ...(more ? { next_attempt_at: next.toISOString() } : { given_up: true }),
  });
  if (more) await deps.retry(delivery.id, next);
}

/** Why an attempt failed, in our words: what the receiver's host or body said is never repeated. */
function attemptError(failure: unknown): string {
  if (failure instanceof ServiceError) {
    if (failure.code === "fetch_blocked") return "refused: the URL's host is not a public address this service may call";
    if (failure.code === "fetch_timeout") return "the receiver did not answer in time";
  }
  return "the receiver could not be reached";
}
