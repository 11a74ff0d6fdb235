/**
 * What a feature hands a webhook: the account, the URL its owner gave (a
 * task's, a batch's, a monitor's), the event's type and its data. The
 * message is stored at once and delivered by the webhook queue's workers
 * (webhooks/deliver.ts), tried until the receiver answers 2xx or 24 hours
 * pass, signed by the Standard Webhooks scheme with the account's secret.
 */
export const WEBHOOK_EVENT_TYPES = ["task.succeeded", "task.failed", "task.canceled", "batch.completed", "monitor.changed"] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export interface WebhookMessage {
  accountId: string;
  url: string;
  type: WebhookEventType;
  /** The event's own data: the body is `{"type", "timestamp", "data"}`, as Standard Webhooks suggests. */
  data: Record<string, unknown>;
}

export interface WebhookSink {
  /** Stores the message and queues its delivery; resolves to its id (the `webhook-id` header) once both are done. */
  emit(message: WebhookMessage): Promise<string>;
}
