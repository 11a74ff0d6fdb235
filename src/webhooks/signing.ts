/**
 * Standard Webhooks signatures (standardwebhooks, the specification's own
 * library): `webhook-id`, `webhook-timestamp` and `webhook-signature`
 * (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`). Within a rotation's
 * grace both secrets sign, space-separated, so a receiver holding either
 * verifies the message.
 */
import { Webhook } from "standardwebhooks";

/** A new `whsec_…` secret: 32 random bytes, base64, as the specification's examples are. */
export function newWebhookSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`;
}

export function signedHeaders(secrets: readonly string[], messageId: string, at: Date, body: string): Record<string, string> {
  const signature = secrets.map((secret) => new Webhook(secret).sign(messageId, at, body)).join(" ");
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signature,
  };
}
