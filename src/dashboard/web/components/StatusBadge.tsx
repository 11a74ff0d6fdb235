/** A task's, a monitor's or a webhook delivery's status as a word in a coloured outline (the word carries it; the colour only helps). */
import type { DeliveryStatus, MonitorStatus, TaskStatus } from "../model.ts";

type Status = TaskStatus | DeliveryStatus | MonitorStatus;

const LABELS: Record<Status, string> = {
  queued: "Queued",
  running: "Running",
  succeeded: "Succeeded",
  failed: "Failed",
  canceled: "Canceled",
  pending: "Pending",
  delivered: "Delivered",
  active: "Active",
  paused: "Paused",
};

export function statusLabel(status: Status): string {
  return LABELS[status] ?? status;
}

export function StatusBadge({ status }: { status: Status }) {
  return <span class={`badge badge-status badge-${status}`}>{statusLabel(status)}</span>;
}
