/**
 * One task: its facts, and while it waits or runs, its events followed live
 * (the sources, then the answer as it is written); once it has finished,
 * its result read back (exactly the synchronous call's answer) or its
 * error. It can be canceled until it finishes.
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorMessage, StatusMessage } from "../components/ErrorMessage.tsx";
import { PageHeading } from "../components/PageHeading.tsx";
import { SearchAnswer } from "../components/SearchAnswer.tsx";
import { StatusBadge, statusLabel } from "../components/StatusBadge.tsx";
import { useAction } from "../components/useAction.ts";
import { useLoad } from "../components/useLoad.ts";
import { formatCount, formatTime } from "../format.ts";
import type { SearchResult, Task } from "../model.ts";
import { BASE, Link } from "../router.tsx";
import { followTask } from "../task-stream.ts";
import { canCancel, isFinal, kindLabel } from "./tasks/task-facts.ts";

const PROGRESS: Record<string, string> = {
  queued: "Queued: waiting for a worker (or for your other running tasks to finish)…",
  running: "Running: searching, reading and writing the answer…",
};

/** The task's events while it is followed: its status, and the answer so far; `reread` when the stored task has news. */
function useFollow(task: Task | null, reread: () => void) {
  const [live, setLive] = useState<{ status: Task["status"]; attempt: number | null; partial: SearchResult | null }>({
    status: "queued",
    attempt: null,
    partial: null,
  });
  const [error, setError] = useState<unknown>(null);
  const following = task !== null && !isFinal(task);
  const id = task?.id;
  useEffect(() => {
    if (!following || !id) return;
    setError(null);
    const stop = followTask(id, {
      onStatus: (status, attempt) => {
        setLive((l) => ({
          status,
          attempt: attempt ?? l.attempt,
          // A run begun again starts its answer afresh.
          partial: status === "running" ? null : l.partial,
        }));
        // A run began: the stored task has its start time and attempt count.
        if (status === "running") reread();
      },
      onContext: (context) => setLive((l) => ({ ...l, partial: { response: l.partial?.response ?? "", context } })),
      onResponse: (content) =>
        setLive((l) => {
          const before = l.partial?.response ?? "";
          const response = typeof content === "string" && typeof before === "string" ? before + content : content;
          return { ...l, partial: { context: l.partial?.context ?? [], response } };
        }),
      onError: setError,
      onEnd: reread,
    });
    return stop;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [following, id]);
  return { live, error, following };
}

function Facts({ task, status, attempts }: { task: Task; status: Task["status"]; attempts: number }) {
  return (
    <dl class="facts">
      <div>
        <dt>Status</dt>
        <dd>
          <StatusBadge status={status} />
        </dd>
      </div>
      <div>
        <dt>Kind</dt>
        <dd>{kindLabel(task)}</dd>
      </div>
      <div>
        <dt>Attempts</dt>
        <dd>{formatCount(attempts)}</dd>
      </div>
      <div>
        <dt>Created</dt>
        <dd class="fact-time">{formatTime(task.created_at)}</dd>
      </div>
      <div>
        <dt>Started</dt>
        <dd class="fact-time">{formatTime(task.started_at, "Not yet")}</dd>
      </div>
      <div>
        <dt>Finished</dt>
        <dd class="fact-time">{formatTime(task.finished_at, "Not yet")}</dd>
      </div>
    </dl>
  );
}

export function TaskPage({ taskId }: { taskId: string }) {
  const loaded = useLoad((signal) => api.get<Task>(`/v1/tasks/${encodeURIComponent(taskId)}`, { signal }), [taskId]);
  const task = loaded.data;
  // When it starts and when it ends the task is read again: its times, its attempts, its result as stored (with its info).
  const { live, error: followError, following } = useFollow(task, loaded.reload);
  const cancel = useAction();

  const cancelTask = () =>
    cancel.run(async () => {
      loaded.set(await api.post<Task>(`/v1/tasks/${encodeURIComponent(taskId)}/cancel`));
      cancel.setStatus("Task canceled.");
    });

  const back = (
    <p class="breadcrumb">
      <Link href={`${BASE}/tasks`}>Tasks</Link> /
    </p>
  );
  if (!task) {
    return (
      <section>
        {back}
        <PageHeading title="Task" />
        <ErrorMessage error={loaded.error} />
        {loaded.loading ? <p>Loading the task…</p> : null}
      </section>
    );
  }

  // While followed, the stream knows the status first; the stored task catches up at the end.
  const status = following && live.status !== "queued" ? live.status : task.status;
  const attempts = following ? Math.max(task.attempts, live.attempt ?? 0) : task.attempts;
  const result = task.result ?? (following ? live.partial : null);
  return (
    <section>
      {back}
      <PageHeading title={`Task ${task.id}`}>
        Task <code class="wrap">{task.id}</code>
      </PageHeading>
      <Facts task={task} status={status} attempts={attempts} />

      {canCancel({ status }) ? (
        <div class="actions toolbar">
          <button type="button" class="danger" onClick={() => void cancelTask()} disabled={cancel.busy}>
            {cancel.busy ? "Canceling…" : "Cancel task"}
          </button>
        </div>
      ) : null}
      <StatusMessage
        text={following ? (PROGRESS[status] ?? "") : cancel.status || `This task ${statusLabel(task.status).toLowerCase()}.`}
        tone={following ? "neutral" : task.status === "failed" ? "failure" : task.status === "succeeded" ? "success" : "neutral"}
      />
      <ErrorMessage error={loaded.error ?? cancel.error ?? followError} />

      {task.error ? (
        <div class="error-box" role="region" aria-label="Task error">
          <p>
            <code>{task.error.code}</code>: {task.error.message}
          </p>
        </div>
      ) : null}
      {result ? <SearchAnswer result={result} idPrefix="task-" streaming={following} /> : null}

      {task.webhook || task.metadata ? (
        <section aria-labelledby="task-more-heading">
          <h2 id="task-more-heading">Webhook and metadata</h2>
          {task.webhook ? (
            <p>
              Its end is sent to <code class="wrap">{task.webhook.url}</code>; see <Link href={`${BASE}/webhooks`}>webhook deliveries</Link>
              .
            </p>
          ) : null}
          {task.metadata ? (
            <pre class="json" tabIndex={0} aria-label="Metadata (JSON)">
              {JSON.stringify(task.metadata, null, 2)}
            </pre>
          ) : null}
        </section>
      ) : null}
      <details>
        <summary>Raw task</summary>
        <pre class="code" tabIndex={0}>
          {JSON.stringify(task, null, 2)}
        </pre>
      </details>
    </section>
  );
}
