/** One webhook delivery: what was sent, every attempt with the receiver's answer, and sending it again. */
import { api } from "../api.ts";
import { ErrorMessage, StatusMessage } from "../components/ErrorMessage.tsx";
import { PageHeading } from "../components/PageHeading.tsx";
import { StatusBadge } from "../components/StatusBadge.tsx";
import { Table, type Column } from "../components/Table.tsx";
import { useAction } from "../components/useAction.ts";
import { useLoad } from "../components/useLoad.ts";
import { formatCount, formatTime } from "../format.ts";
import type { Delivery, DeliveryDetail } from "../model.ts";
import { BASE, Link } from "../router.tsx";
import { taskHref } from "./tasks/task-facts.ts";
import { canRedeliver, formatLatency } from "./webhooks/delivery-facts.ts";

const ATTEMPT_COLUMNS: Column[] = [
  { label: "Attempt", numeric: true },
  { label: "Time" },
  { label: "Answer", numeric: true },
  { label: "Latency", numeric: true },
  { label: "Error" },
];

/** The task a task.* message is about (its body's `data.task`), when the body names one. */
function taskOf(payload: unknown): string | null {
  const id = (payload as { data?: { task?: { id?: unknown } } } | null)?.data?.task?.id;
  return typeof id === "string" && id.startsWith("task_") ? id : null;
}

export function DeliveryPage({ deliveryId }: { deliveryId: string }) {
  const path = `/v1/webhooks/deliveries/${encodeURIComponent(deliveryId)}`;
  const loaded = useLoad((signal) => api.get<DeliveryDetail>(path, { signal }), [path]);
  const redelivery = useAction();
  const delivery = loaded.data;

  const redeliver = () =>
    redelivery.run(async () => {
      const again = await api.post<Delivery>(`${path}/redeliver`);
      if (delivery) loaded.set({ ...delivery, ...again });
      redelivery.setStatus("Sent again: the attempts below show how it goes (Refresh to see them).");
    });

  const back = (
    <p class="breadcrumb">
      <Link href={`${BASE}/webhooks`}>Webhooks</Link> /
    </p>
  );
  if (!delivery) {
    return (
      <section>
        {back}
        <PageHeading title="Webhook delivery" />
        <ErrorMessage error={loaded.error} />
        {loaded.loading ? <p>Loading the delivery…</p> : null}
      </section>
    );
  }
  const task = taskOf(delivery.payload);
  return (
    <section>
      {back}
      <PageHeading title={`Delivery ${delivery.id}`}>
        <code>{delivery.event_type}</code> delivery
      </PageHeading>
      <p class="subtitle">
        <code class="wrap">{delivery.id}</code> to <code class="wrap">{delivery.url}</code>
        {task ? (
          <>
            {" "}
            · <Link href={taskHref(task)}>the task</Link>
          </>
        ) : null}
      </p>
      <dl class="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={delivery.status} />
          </dd>
        </div>
        <div>
          <dt>Attempts</dt>
          <dd>{formatCount(delivery.attempts)}</dd>
        </div>
        <div>
          <dt>Last answer</dt>
          <dd>{delivery.last_status ?? "None"}</dd>
        </div>
        <div>
          <dt>Latency</dt>
          <dd>{formatLatency(delivery.last_latency_ms)}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd class="fact-time">{formatTime(delivery.created_at)}</dd>
        </div>
        <div>
          <dt>Delivered</dt>
          <dd class="fact-time">{formatTime(delivery.delivered_at, "Not yet")}</dd>
        </div>
        {delivery.next_attempt_at ? (
          <div>
            <dt>Next attempt</dt>
            <dd class="fact-time">{formatTime(delivery.next_attempt_at)}</dd>
          </div>
        ) : null}
      </dl>
      {delivery.last_error ? (
        <p>
          Last error: <span class="wrap-text">{delivery.last_error}</span>
        </p>
      ) : null}

      <div class="actions toolbar">
        {canRedeliver(delivery) ? (
          <button type="button" onClick={() => void redeliver()} disabled={redelivery.busy}>
            {redelivery.busy ? "Sending…" : "Redeliver"}
          </button>
        ) : null}
        <button type="button" class="secondary" onClick={loaded.reload} disabled={loaded.loading}>
          Refresh
        </button>
      </div>
      <StatusMessage text={redelivery.status} />
      <ErrorMessage error={loaded.error ?? redelivery.error} />

      <h2>Attempts</h2>
      {delivery.attempt_log.length === 0 ? (
        <p>No attempts yet.</p>
      ) : (
        <Table caption="Delivery attempts" captionUnseen responsive columns={ATTEMPT_COLUMNS}>
          {delivery.attempt_log.map((attempt) => (
            <tr key={attempt.n}>
              <td data-label="Attempt" class="num">
                {attempt.n}
              </td>
              <td data-label="Time">{formatTime(attempt.at)}</td>
              <td data-label="Answer" class={`num ${attempt.status === null || attempt.status >= 300 ? "bad" : ""}`}>
                {attempt.status ?? "None"}
              </td>
              <td data-label="Latency" class="num">
                {formatLatency(attempt.latency_ms)}
              </td>
              <td data-label="Error" class="wrap-text">
                {attempt.error ?? ""}
              </td>
            </tr>
          ))}
        </Table>
      )}

      <h2>Body</h2>
      <pre class="json" tabIndex={0} aria-label="The body sent (JSON)">
        {JSON.stringify(delivery.payload, null, 2)}
      </pre>
    </section>
  );
}
