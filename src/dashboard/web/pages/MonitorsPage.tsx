/**
 * Monitors: a question asked again on a schedule, whose webhook hears when
 * the answer changes. A form makes one (a prompt, a schedule, a webhook
 * URL); the account's monitors are listed newest first, a page at a time,
 * each paused or resumed in place and deleted after a confirmation. A
 * monitor's own page shows its runs.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorMessage, StatusMessage } from "../components/ErrorMessage.tsx";
import { TextArea, TextInput } from "../components/Field.tsx";
import { PageHeading } from "../components/PageHeading.tsx";
import { StatusBadge } from "../components/StatusBadge.tsx";
import { SubmitButton } from "../components/SubmitButton.tsx";
import { Table, type Column } from "../components/Table.tsx";
import { useAction } from "../components/useAction.ts";
import { useCursorList } from "../components/useCursorList.ts";
import { formatTime } from "../format.ts";
import type { Monitor } from "../model.ts";
import { BASE, Link, navigate } from "../router.tsx";
import { DeleteMonitorDialog } from "./monitors/DeleteMonitorDialog.tsx";
import { askedOf, monitorHref, scheduleWords } from "./monitors/monitor-facts.ts";
import { LastRun } from "./monitors/LastRun.tsx";
import { draftOf, ScheduleFields, scheduleOf } from "./monitors/ScheduleFields.tsx";

const COLUMNS: Column[] = [
  { label: "Monitor" },
  { label: "Status" },
  { label: "Schedule" },
  { label: "Next run" },
  { label: "Last answer" },
  { label: "Actions", unseen: true },
];

function CreateForm() {
  const [prompt, setPrompt] = useState("");
  const [schedule, setSchedule] = useState(draftOf(null));
  const [webhook, setWebhook] = useState("");
  const create = useAction();

  const submit = (e: Event) => {
    e.preventDefault();
    void create.run(async () => {
      const monitor = await api.post<Monitor>("/v1/monitors", { prompt, schedule: scheduleOf(schedule), webhook: { url: webhook.trim() } });
      navigate(monitorHref(monitor.id));
    }, "Creating the monitor…");
  };

  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="create-monitor-heading">
      <h2 id="create-monitor-heading">Create a monitor</h2>
      <TextArea label="Prompt" rows={3} required value={prompt} onValue={setPrompt} errors={create.issues("prompt")} />
      <ScheduleFields value={schedule} onChange={setSchedule} error={create.error} />
      <TextInput
        label="Webhook URL"
        type="url"
        required
        markRequired
        hint={
          <>
            An https URL that hears <code>monitor.changed</code> when an answer differs from the last one, signed with your{" "}
            <Link href={`${BASE}/webhooks`}>webhook secret</Link>.
          </>
        }
        maxLength={2048}
        value={webhook}
        onValue={setWebhook}
        errors={create.issues("webhook")}
      />
      <div class="actions">
        <SubmitButton busy={create.busy} busyLabel="Creating…">
          Create monitor
        </SubmitButton>
      </div>
      <ErrorMessage error={create.error} />
      <StatusMessage text={create.status} />
    </form>
  );
}

export function MonitorsPage() {
  const monitors = useCursorList<Monitor>("/v1/monitors?limit=20");
  const change = useAction();
  const [deleting, setDeleting] = useState<Monitor | null>(null);

  const setStatus = (monitor: Monitor, status: Monitor["status"]) =>
    change.run(async () => {
      monitors.replace(await api.patch<Monitor>(`/v1/monitors/${encodeURIComponent(monitor.id)}`, { status }));
      change.setStatus(`Monitor ${monitor.id} ${status === "paused" ? "paused" : "resumed"}.`);
    });

  return (
    <section>
      <PageHeading title="Monitors" />
      <p class="lead">
        A monitor asks the same question on a schedule, each run a <Link href={`${BASE}/tasks`}>task</Link>, and tells its webhook when the
        answer changes: a cited source or a claim, or a field of a structured answer.
      </p>
      <CreateForm />

      <section aria-labelledby="monitors-heading">
        <div class="section-head">
          <h2 id="monitors-heading">Your monitors</h2>
        </div>
        <div class="actions toolbar">
          <button type="button" class="secondary small" onClick={monitors.reload} disabled={monitors.loading}>
            Refresh
          </button>
        </div>
        <StatusMessage text={change.status} />
        <ErrorMessage error={monitors.error ?? change.error} />
        {monitors.items === null ? (
          monitors.loading ? (
            <p>Loading monitors…</p>
          ) : null
        ) : monitors.items.length === 0 ? (
          <p>No monitors yet.</p>
        ) : (
          <Table caption="Monitors" captionUnseen responsive columns={COLUMNS}>
            {monitors.items.map((monitor) => (
              <tr key={monitor.id}>
                <td data-label="Monitor">
                  <span>
                    <Link href={monitorHref(monitor.id)} class="asked">
                      {askedOf(monitor)}
                    </Link>
                    <br />
                    <code class="wrap muted small-id">{monitor.id}</code>
                  </span>
                </td>
                <td data-label="Status">
                  <StatusBadge status={monitor.status} />
                </td>
                <td data-label="Schedule">{scheduleWords(monitor.schedule)}</td>
                <td data-label="Next run">{monitor.status === "paused" ? "Paused" : formatTime(monitor.next_run_at)}</td>
                <td data-label="Last answer">
                  <LastRun monitor={monitor} />
                </td>
                <td data-label="Actions">
                  <span class="actions">
                    {monitor.status === "active" ? (
                      <button
                        type="button"
                        class="secondary small"
                        aria-label={`Pause monitor ${monitor.id}`}
                        disabled={change.busy}
                        onClick={() => void setStatus(monitor, "paused")}
                      >
                        Pause
                      </button>
                    ) : (
                      <button
                        type="button"
                        class="secondary small"
                        aria-label={`Resume monitor ${monitor.id}`}
                        disabled={change.busy}
                        onClick={() => void setStatus(monitor, "active")}
                      >
                        Resume
                      </button>
                    )}
                    <button
                      type="button"
                      class="danger small"
                      aria-label={`Delete monitor ${monitor.id}`}
                      onClick={() => setDeleting(monitor)}
                    >
                      Delete
                    </button>
                  </span>
                </td>
              </tr>
            ))}
          </Table>
        )}
        {monitors.hasMore ? (
          <div class="pager">
            <button type="button" class="secondary" onClick={monitors.more} disabled={monitors.loadingMore}>
              {monitors.loadingMore ? "Loading…" : "Load more monitors"}
            </button>
          </div>
        ) : null}
      </section>
      <DeleteMonitorDialog
        monitor={deleting}
        onCancel={() => setDeleting(null)}
        onDeleted={(monitor) => {
          setDeleting(null);
          change.setStatus(`Monitor ${monitor.id} deleted.`);
          monitors.reload();
        }}
      />
    </section>
  );
}
