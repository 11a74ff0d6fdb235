/** A task's or a webhook delivery's status as a word in a coloured outline (the word carries it; the colour only helps). */
import type { DeliveryStatus, TaskStatus } from "../model.ts";

const LABELS: Record<TaskStatus | DeliveryStatus, string> = {
  queued: "Queued",
  running: "Running",
  succeeded: "Succeeded",
  failed: "Failed",
  canceled: "Canceled",
  pending: "Pending",
  delivered: "Delivered",
};

export function statusLabel(status: TaskStatus | DeliveryStatus): string {
  return LABELS[status] ?? status;
}

export function StatusBadge({ status }: { status: TaskStatus | DeliveryStatus }) {
  return <span class={`badge badge-status badge-${status}`}>{statusLabel(status)}</span>;
}
