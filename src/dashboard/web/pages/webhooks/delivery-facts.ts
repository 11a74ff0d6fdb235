/** How a webhook delivery reads on the dashboard: its address, its latency, whether it can be sent again. */
import { BASE } from "../../router.tsx";
import type { Delivery } from "../../model.ts";
import { formatCount } from "../../format.ts";

export function deliveryHref(id: string): string {
  return `${BASE}/webhooks/deliveries/${encodeURIComponent(id)}`;
}

/** A delivery still being tried is a 409; a delivered or failed one can be sent again. */
export function canRedeliver(delivery: Pick<Delivery, "status">): boolean {
  return delivery.status !== "pending";
}

export function formatLatency(ms: number | null): string {
  return ms === null ? "—" : `${formatCount(ms)} ms`;
}
