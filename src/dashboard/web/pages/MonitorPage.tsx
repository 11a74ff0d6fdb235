/**
 * One monitor: what it asks and when, its webhook, paused or resumed, its
 * schedule and webhook changed, deleted after a confirmation; and its runs,
 * newest first, a page at a time, each with whether its answer changed from
 * the one before (and what changed), linking to the run's task.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorMessage, StatusMessage } from "../components/ErrorMessage.tsx";
import { TextInput } from "../components/Field.tsx";
import { PageHeading } from "../components/PageHeading.tsx";
import { StatusBadge } from "../components/StatusBadge.tsx";
import { SubmitButton } from "../components/SubmitButton.tsx";
import { Table, type Column } from "../components/Table.tsx";
import { useAction } from "../components/useAction.ts";
import { type CursorList, useCursorList } from "../components/useCursorList.ts";
import { useLoad } from "../components/useLoad.ts";
import { formatTime } from "../format.ts";
import type { Monitor, MonitorRun } from "../model.ts";
import { BASE, Link, navigate } from "../router.tsx";
import { DeleteMonitorDialog } from "./monitors/DeleteMonitorDialog.tsx";
import { LastRun } from "./monitors/LastRun.tsx";
import { askedOf, scheduleWords } from "./monitors/monitor-facts.ts";
import { changeSummary, RunChanges } from "./monitors/RunChanges.tsx";
import { draftOf, ScheduleFields, scheduleOf } from "./monitors/ScheduleFields.tsx";
import { useWatch } from "./monitors/useWatch.ts";
import { taskHref } from "./tasks/task-facts.ts";

const RUN_COLUMNS: Column[] = [{ label: "Run" }, { label: "Status" }, { label: "Started" }, { label: "Finished" }, { label: "Answer" }];

function Facts({ monitor }: { monitor: Monitor }) {
  return (
    <dl class="facts">
      <div>
        <dt>Status</dt>
        <dd>
          <StatusBadge status={monitor.status} />
        </dd>
      </div>
      <div>
        <dt>Schedule</dt>
        <dd class="fact-time">{scheduleWords(monitor.schedule)}</dd>
      </div>
      <div>
        <dt>Next run</dt>
        <dd class="fact-time">{monitor.status === "paused" ? "Paused" : formatTime(monitor.next_run_at)}</dd>
      </div>
      <div>
        <dt>Last answer</dt>
        <dd class="fact-time">
          <LastRun monitor={monitor} />
        </dd>
      </div>
      <div>
        <dt>Created</dt>
        <dd class="fact-time">{formatTime(monitor.created_at)}</dd>
      </div>
    </dl>
  );
}

/** The schedule and the webhook, changed with one PATCH (the body it runs does not change: that is a new monitor). */
function EditForm({ monitor, onSaved }: { monitor: Monitor; onSaved: (m: Monitor) => void }) {
  const [schedule, setSchedule] = useState(draftOf(monitor.schedule));
  const [webhook, setWebhook] = useState(monitor.webhook.url);
  const save = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void save.run(async () => {
      onSaved(
        await api.patch<Monitor>(`/v1/monitors/${encodeURIComponent(monitor.id)}`, {
          schedule: scheduleOf(schedule),
          webhook: { url: webhook.trim() },
        }),
      );
      save.setStatus("Saved: the next run is due by the new schedule from now.");
    }, "Saving…");
  };
  return (
    <form class="card stack after-table" onSubmit={submit} aria-labelledby="edit-monitor-heading">
      <h2 id="edit-monitor-heading">Schedule and webhook</h2>
      <ScheduleFields value={schedule} onChange={setSchedule} error={save.error} />
      <TextInput
        label="Webhook URL"
        type="url"
        required
        markRequired
        maxLength={2048}
        value={webhook}
        onValue={setWebhook}
        errors={save.issues("webhook")}
      />
      <div class="actions">
        <SubmitButton busy={save.busy} busyLabel="Saving…">
          Save changes
        </SubmitButton>
      </div>
      <ErrorMessage error={save.error} />
      <StatusMessage text={save.status} />
    </form>
  );
}

function Runs({ runs }: { runs: CursorList<MonitorRun> }) {
  return (
    <section aria-labelledby="runs-heading">
      <div class="section-head">
        <h2 id="runs-heading">Runs</h2>
      </div>
      <div class="actions toolbar">
        <button type="button" class="secondary small" onClick={runs.reload} disabled={runs.loading}>
          Refresh runs
        </button>
      </div>
      <ErrorMessage error={runs.error} />
      {runs.items === null ? (
        runs.loading ? (
          <p>Loading runs…</p>
        ) : null
      ) : runs.items.length === 0 ? (
        <p>No runs yet.</p>
      ) : (
        <Table caption="Runs" captionUnseen responsive columns={RUN_COLUMNS}>
          {runs.items.map((run) => (
            <tr key={run.id}>
              <td data-label="Run">
                <Link href={taskHref(run.id)}>
                  <code class="wrap task-id">{run.id}</code>
                </Link>
              </td>
              <td data-label="Status">
                <StatusBadge status={run.status} />
              </td>
              <td data-label="Started">{formatTime(run.started_at, "Not yet")}</td>
              <td data-label="Finished">{formatTime(run.finished_at, "Not yet")}</td>
              <td data-label="Answer" class="wrap-text">
                <span>
                  <span class={run.monitor?.changed ? "changed" : undefined}>{changeSummary(run)}</span>
                  {run.monitor?.changes ? (
                    <details class="change-details">
                      <summary>What changed</summary>
                      <RunChanges changes={run.monitor.changes} label={`What changed in run ${run.id}`} />
                    </details>
                  ) : null}
                </span>
              </td>
            </tr>
          ))}
        </Table>
      )}
      {runs.hasMore ? (
        <div class="pager">
          <button type="button" class="secondary" onClick={runs.more} disabled={runs.loadingMore}>
            {runs.loadingMore ? "Loading…" : "Load more runs"}
          </button>
        </div>
      ) : null}
    </section>
  );
}

export function MonitorPage({ monitorId }: { monitorId: string }) {
  const path = `/v1/monitors/${encodeURIComponent(monitorId)}`;
  const loaded = useLoad((signal) => api.get<Monitor>(path, { signal }), [path]);
  const change = useAction();
  const [deleting, setDeleting] = useState(false);
  const monitor = loaded.data;
  const runs = useCursorList<MonitorRun>(`${path}/runs?limit=20`);
  useWatch(monitor, runs, loaded.reload);

  const setStatus = (status: Monitor["status"]) =>
    change.run(async () => {
      loaded.set(await api.patch<Monitor>(path, { status }));
      change.setStatus(
        status === "paused" ? "Monitor paused: it runs no more until resumed." : "Monitor resumed: its next run is due by its schedule.",
      );
    });

  const back = (
    <p class="breadcrumb">
      <Link href={`${BASE}/monitors`}>Monitors</Link> /
    </p>
  );
  if (!monitor) {
    return (
      <section>
        {back}
        <PageHeading title="Monitor" />
        <ErrorMessage error={loaded.error} />
        {loaded.loading ? <p>Loading the monitor…</p> : null}
      </section>
    );
  }
  return (
    <section>
      {back}
      <PageHeading title={`Monitor ${monitor.id}`}>
        Monitor <code class="wrap">{monitor.id}</code>
      </PageHeading>
      <blockquote class="asked-quote wrap-anywhere" aria-label="What it asks">
        {askedOf(monitor)}
      </blockquote>
      <Facts monitor={monitor} />
      <p class="subtitle">
        Changes are sent to <code class="wrap">{monitor.webhook.url}</code>; see <Link href={`${BASE}/webhooks`}>webhook deliveries</Link>.
      </p>
      <div class="actions toolbar">
        {monitor.status === "active" ? (
          <button type="button" class="secondary" onClick={() => void setStatus("paused")} disabled={change.busy}>
            Pause
          </button>
        ) : (
          <button type="button" onClick={() => void setStatus("active")} disabled={change.busy}>
            Resume
          </button>
        )}
        <button type="button" class="danger" onClick={() => setDeleting(true)}>
          Delete monitor
        </button>
      </div>
      <StatusMessage text={change.status} />
      <ErrorMessage error={loaded.error ?? change.error} />

      <Runs runs={runs} />
      <EditForm monitor={monitor} onSaved={loaded.set} />

      {monitor.metadata ? (
        <>
          <h2>Metadata</h2>
          <pre class="json" tabIndex={0} aria-label="Metadata (JSON)">
            {JSON.stringify(monitor.metadata, null, 2)}
          </pre>
        </>
      ) : null}
      <details>
        <summary>Raw monitor</summary>
        <pre class="code" tabIndex={0}>
          {JSON.stringify(monitor, null, 2)}
        </pre>
      </details>
      <DeleteMonitorDialog
        monitor={deleting ? monitor : null}
        onCancel={() => setDeleting(false)}
        onDeleted={() => navigate(`${BASE}/monitors`)}
      />
    </section>
  );
}
