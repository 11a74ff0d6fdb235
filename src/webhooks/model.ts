/** Webhooks on the wire: the signing secret, deliveries and their attempts. */
import { t } from "elysia";
import { listOf, pageQuery } from "../http/list-model.ts";
import type { AttemptRow, DeliveryRow, SecretRow } from "./queries.ts";

const Timestamp = t.String({ format: "date-time" });

export const SecretView = t.Object({
  secret: t.String({ description: "The `whsec_…` secret deliveries are signed with (Standard Webhooks): give it to your verifier." }),
  previous_secret_expires_at: t.Union([Timestamp, t.Null()], {
    description: "After a rotation, until when the previous secret also signs (both signatures are sent); null otherwise.",
  }),
  rotated_at: t.Union([Timestamp, t.Null()]),
});

const DeliveryStatus = t.Union([t.Literal("pending"), t.Literal("delivered"), t.Literal("failed")]);

const DeliveryFields = {
  id: t.String({ description: "The message id, sent as the `webhook-id` header." }),
  object: t.Literal("webhook_delivery"),
  event_type: t.String({ examples: ["task.succeeded"] }),
  url: t.String(),
  status: DeliveryStatus,
  attempts: t.Integer({ minimum: 0 }),
  last_status: t.Union([t.Integer(), t.Null()], { description: "The receiver's status on the last attempt; null when it never answered." }),
  last_error: t.Union([t.String(), t.Null()], { description: "Why the last attempt failed, in this service's words." }),
  last_latency_ms: t.Union([t.Integer(), t.Null()]),
  next_attempt_at: t.Union([Timestamp, t.Null()]),
  created_at: Timestamp,
  delivered_at: t.Union([Timestamp, t.Null()]),
};

export const DeliveryView = t.Object(DeliveryFields);

export const DeliveryDetail = t.Object({
  ...DeliveryFields,
  payload: t.Unknown({ description: "The body that is sent: `{type, timestamp, data}`." }),
  attempt_log: t.Array(
    t.Object({
      n: t.Integer({ minimum: 1 }),
      at: Timestamp,
      status: t.Union([t.Integer(), t.Null()]),
      latency_ms: t.Integer({ minimum: 0 }),
      error: t.Union([t.String(), t.Null()]),
    }),
  ),
});

export const DeliveryList = listOf(DeliveryView);

export const DeliveryListQuery = t.Object({
  status: t.Optional({ ...DeliveryStatus, description: "Only deliveries in this status." }),
  ...pageQuery("Deliveries"),
});

export const DeliveryIdParams = t.Object({ delivery_id: t.String({ maxLength: 64 }) });

export function secretView(row: SecretRow, now: Date) {
  return {
    secret: row.secret,
    previous_secret_expires_at: row.previousSecret && row.previousUntil && row.previousUntil > now ? row.previousUntil.toISOString() : null,
    rotated_at: row.rotatedAt?.toISOString() ?? null,
  };
}

export function deliveryView(row: DeliveryRow) {
  return {
    id: row.id,
    object: "webhook_delivery" as const,
    event_type: row.eventType,
    url: row.url,
    status: row.status,
    attempts: row.attempts,
    last_status: row.lastStatus,
    last_error: row.lastError,
    last_latency_ms: row.lastLatencyMs,
    next_attempt_at: row.nextAttemptAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    delivered_at: row.deliveredAt?.toISOString() ?? null,
  };
}

export function deliveryDetail(row: DeliveryRow, attempts: AttemptRow[]) {
  return {
    ...deliveryView(row),
    payload: JSON.parse(row.payload) as unknown,
    attempt_log: attempts.map((a) => ({ n: a.n, at: a.at.toISOString(), status: a.status, latency_ms: a.latencyMs, error: a.error })),
  };
}
