/**
 * Webhooks: the signing secret (revealed, copied, rotated), and every
 * delivery of the account's webhooks, newest first, by status, a page at a
 * time, with the receiver's last answer and a way to send one again.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorMessage, StatusMessage } from "../components/ErrorMessage.tsx";
import { StatusFilter } from "../components/StatusFilter.tsx";
import { PageHeading } from "../components/PageHeading.tsx";
import { StatusBadge } from "../components/StatusBadge.tsx";
import { Table, type Column } from "../components/Table.tsx";
import { useAction } from "../components/useAction.ts";
import { useCursorList } from "../components/useCursorList.ts";
import { formatCount, formatTime } from "../format.ts";
import type { Delivery, DeliveryStatus } from "../model.ts";
import { BASE, Link } from "../router.tsx";
import { canRedeliver, deliveryHref, formatLatency } from "./webhooks/delivery-facts.ts";
import { SecretCard } from "./webhooks/SecretCard.tsx";

const STATUSES: { value: "" | DeliveryStatus; label: string }[] = [
  { value: "", label: "All" },
  { value: "pending", label: "Pending" },
  { value: "delivered", label: "Delivered" },
  { value: "failed", label: "Failed" },
];

const COLUMNS: Column[] = [
  { label: "Event" },
  { label: "URL" },
  { label: "Status" },
  { label: "Attempts", numeric: true },
  { label: "Last answer", numeric: true },
  { label: "Latency", numeric: true },
  { label: "Last error" },
  { label: "Created" },
  { label: "Delivered" },
  { label: "Actions", unseen: true },
];

export function WebhooksPage() {
  const [status, setStatus] = useState<"" | DeliveryStatus>("");
  const deliveries = useCursorList<Delivery>(`/v1/webhooks/deliveries?limit=20${status ? `&status=${status}` : ""}`);
  const redelivery = useAction();

  const redeliver = (delivery: Delivery) =>
    redelivery.run(async () => {
      deliveries.replace(await api.post<Delivery>(`/v1/webhooks/deliveries/${encodeURIComponent(delivery.id)}/redeliver`));
      redelivery.setStatus(`${delivery.event_type} is being sent again.`);
    });

  return (
    <section>
      <PageHeading title="Webhooks" />
      <p class="lead">
        A task started with a <code>webhook</code> URL sends its end there: <code>task.succeeded</code>, <code>task.failed</code> or{" "}
        <code>task.canceled</code>, tried again for 24 hours until the receiver answers with a 2xx. Start one on the{" "}
        <Link href={`${BASE}/tasks`}>Tasks</Link> page.
      </p>
      <SecretCard />

      <section aria-labelledby="deliveries-heading">
        <div class="section-head">
          <h2 id="deliveries-heading">Deliveries</h2>
          <StatusFilter value={status} options={STATUSES} onChange={setStatus} />
        </div>
        <div class="actions toolbar">
          <button type="button" class="secondary small" onClick={deliveries.reload} disabled={deliveries.loading}>
            Refresh
          </button>
        </div>
        <StatusMessage text={redelivery.status} />
        <ErrorMessage error={deliveries.error ?? redelivery.error} />
        {deliveries.items === null ? (
          deliveries.loading ? (
            <p>Loading deliveries…</p>
          ) : null
        ) : deliveries.items.length === 0 ? (
          <p>{status ? "No deliveries with this status." : "No deliveries yet."}</p>
        ) : (
          <Table caption="Webhook deliveries" captionUnseen responsive columns={COLUMNS}>
            {deliveries.items.map((delivery) => (
              <tr key={delivery.id}>
                <td data-label="Event">
                  <Link href={deliveryHref(delivery.id)} aria-label={`${delivery.event_type} delivery ${delivery.id}`}>
                    <code>{delivery.event_type}</code>
                  </Link>
                </td>
                <td data-label="URL" class="url-cell">
                  <code class="wrap">{delivery.url}</code>
                </td>
                <td data-label="Status">
                  <StatusBadge status={delivery.status} />
                </td>
                <td data-label="Attempts" class="num">
                  {formatCount(delivery.attempts)}
                </td>
                <td data-label="Last answer" class={`num ${delivery.last_status !== null && delivery.last_status >= 300 ? "bad" : ""}`}>
                  {delivery.last_status ?? "—"}
                </td>
                <td data-label="Latency" class="num">
                  {formatLatency(delivery.last_latency_ms)}
                </td>
                <td data-label="Last error" class="wrap-text">
                  {delivery.last_error ?? ""}
                </td>
                <td data-label="Created">{formatTime(delivery.created_at)}</td>
                <td data-label="Delivered">
                  {/* One child: a stacked row's cell is a grid of its label and its content. */}
                  <span>
                    {formatTime(delivery.delivered_at, "Not yet")}
                    {delivery.status === "pending" && delivery.next_attempt_at ? (
                      <span class="muted"> (next try {formatTime(delivery.next_attempt_at)})</span>
                    ) : null}
                  </span>
                </td>
                <td data-label="Actions">
                  {canRedeliver(delivery) ? (
                    <button
                      type="button"
                      class="secondary small"
                      aria-label={`Redeliver ${delivery.event_type} delivery ${delivery.id}`}
                      disabled={redelivery.busy}
                      onClick={() => void redeliver(delivery)}
                    >
                      Redeliver
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </Table>
        )}
        {deliveries.hasMore ? (
          <div class="pager">
            <button type="button" class="secondary" onClick={deliveries.more} disabled={deliveries.loadingMore}>
              {deliveries.loadingMore ? "Loading…" : "Load more deliveries"}
            </button>
          </div>
        ) : null}
      </section>
    </section>
  );
}
