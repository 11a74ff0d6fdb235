/**
 * Tasks: start research that answers later (a prompt, optionally a
 * structured answer and a webhook), and the account's tasks, newest first,
 * by status, a page at a time, each with a way to cancel it while it waits
 * or runs. A task's own page follows it and shows its answer.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorMessage, StatusMessage } from "../components/ErrorMessage.tsx";
import { StatusFilter } from "../components/StatusFilter.tsx";
import { TextArea, TextInput } from "../components/Field.tsx";
import { JsonEditor, parseJson } from "../components/JsonEditor.tsx";
import { PageHeading } from "../components/PageHeading.tsx";
import { StatusBadge } from "../components/StatusBadge.tsx";
import { SubmitButton } from "../components/SubmitButton.tsx";
import { Table, type Column } from "../components/Table.tsx";
import { useAction } from "../components/useAction.ts";
import { useCursorList } from "../components/useCursorList.ts";
import { formatCount, formatTime } from "../format.ts";
import type { Task, TaskStatus } from "../model.ts";
import { BASE, Link, navigate } from "../router.tsx";
import { canCancel, kindLabel, taskHref } from "./tasks/task-facts.ts";

const STATUSES: { value: "" | TaskStatus; label: string }[] = [
  { value: "", label: "All" },
  { value: "queued", label: "Queued" },
  { value: "running", label: "Running" },
  { value: "succeeded", label: "Succeeded" },
  { value: "failed", label: "Failed" },
  { value: "canceled", label: "Canceled" },
];

const COLUMNS: Column[] = [
  { label: "Task" },
  { label: "Status" },
  { label: "Kind" },
  { label: "Created" },
  { label: "Started" },
  { label: "Finished" },
  { label: "Attempts", numeric: true },
  { label: "Actions", unseen: true },
];

function StartForm() {
  const [prompt, setPrompt] = useState("");
  const [format, setFormat] = useState("");
  const [webhook, setWebhook] = useState("");
  const start = useAction();
  const parsedFormat = parseJson(format);

  const submit = (e: Event) => {
    e.preventDefault();
    if (!parsedFormat.ok) {
      document.querySelector<HTMLTextAreaElement>("textarea[aria-invalid]")?.focus();
      return;
    }
    void start.run(async () => {
      const body: Record<string, unknown> = { prompt };
      if (parsedFormat.value !== undefined) body.output_format = parsedFormat.value;
      if (webhook.trim()) body.webhook = { url: webhook.trim() };
      const task = await api.post<Task>("/v1/tasks", body);
      navigate(taskHref(task.id));
    }, "Starting the task…");
  };

  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="start-task-heading">
      <h2 id="start-task-heading">Start a task</h2>
      <TextArea label="Prompt" rows={3} required value={prompt} onValue={setPrompt} errors={start.issues("prompt")} />
      <JsonEditor
        label="Output format (JSON, optional)"
        hint={
          <>
            For a structured answer, e.g. <code>{'{"name": "string", "year": "integer"}'}</code>. Leave empty for a text answer.
          </>
        }
        rows={3}
        value={format}
        onValue={setFormat}
        errors={start.issues("output_format")}
      />
      <TextInput
        label="Webhook URL (optional)"
        type="url"
        hint={
          <>
            An https URL that hears the task's end (<code>task.succeeded</code>, <code>task.failed</code>, <code>task.canceled</code>),
            signed with your <Link href={`${BASE}/webhooks`}>webhook secret</Link>.
          </>
        }
        maxLength={2048}
        value={webhook}
        onValue={setWebhook}
        errors={start.issues("webhook")}
      />
      <div class="actions">
        <SubmitButton busy={start.busy} busyLabel="Starting…">
          Start task
        </SubmitButton>
      </div>
      <ErrorMessage error={start.error} />
      <StatusMessage text={start.status} />
    </form>
  );
}

export function TasksPage() {
  const [status, setStatus] = useState<"" | TaskStatus>("");
  const tasks = useCursorList<Task>(`/v1/tasks?limit=20${status ? `&status=${status}` : ""}`);
  const cancel = useAction();

  const cancelTask = (task: Task) =>
    cancel.run(async () => {
      const canceled = await api.post<Task>(`/v1/tasks/${encodeURIComponent(task.id)}/cancel`);
      tasks.replace(canceled);
      cancel.setStatus(`Task ${task.id} canceled.`);
    });

  return (
    <section>
      <PageHeading title="Tasks" />
      <p class="lead">
        A task runs a search off the request path: start it, go away, and read the answer when it is ready. Tasks started with an API key
        show here too.
      </p>
      <StartForm />

      <section aria-labelledby="tasks-heading">
        <div class="section-head">
          <h2 id="tasks-heading">Your tasks</h2>
          <StatusFilter value={status} options={STATUSES} onChange={setStatus} />
        </div>
        <div class="actions toolbar">
          <button type="button" class="secondary small" onClick={tasks.reload} disabled={tasks.loading}>
            Refresh
          </button>
        </div>
        <StatusMessage text={cancel.status} />
        <ErrorMessage error={tasks.error ?? cancel.error} />
        {tasks.items === null ? (
          tasks.loading ? (
            <p>Loading tasks…</p>
          ) : null
        ) : tasks.items.length === 0 ? (
          <p>{status ? "No tasks with this status." : "No tasks yet."}</p>
        ) : (
          <Table caption="Tasks" captionUnseen responsive columns={COLUMNS}>
            {tasks.items.map((task) => (
              <tr key={task.id}>
                <td data-label="Task">
                  <Link href={taskHref(task.id)}>
                    <code class="wrap task-id">{task.id}</code>
                  </Link>
                </td>
                <td data-label="Status">
                  <StatusBadge status={task.status} />
                </td>
                <td data-label="Kind">{kindLabel(task)}</td>
                <td data-label="Created">{formatTime(task.created_at)}</td>
                <td data-label="Started">{formatTime(task.started_at, "Not yet")}</td>
                <td data-label="Finished">{formatTime(task.finished_at, "Not yet")}</td>
                <td data-label="Attempts" class="num">
                  {formatCount(task.attempts)}
                </td>
                <td data-label="Actions">
                  {canCancel(task) ? (
                    <button
                      type="button"
                      class="danger small"
                      aria-label={`Cancel task ${task.id}`}
                      disabled={cancel.busy}
                      onClick={() => void cancelTask(task)}
                    >
                      Cancel
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </Table>
        )}
        {tasks.hasMore ? (
          <div class="pager">
            <button type="button" class="secondary" onClick={tasks.more} disabled={tasks.loadingMore}>
              {tasks.loadingMore ? "Loading…" : "Load more tasks"}
            </button>
          </div>
        ) : null}
      </section>
    </section>
  );
}
