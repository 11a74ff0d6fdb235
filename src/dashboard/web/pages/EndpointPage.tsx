/**
 * One version of a designed endpoint: what its state means and its one
 * action (VersionState), the editor with "try it" beside it (two columns on a
 * wide screen, stacked on a phone), the versions, then the secondary tasks
 * folded: integration snippets, publishing, deleting.
 */
import { openAiSnippets } from "../openai-snippets.ts";
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { CodeSnippets } from "../components/CodeSnippets.tsx";
import { ConfirmDialog } from "../components/ConfirmDialog.tsx";
import { CopyButton } from "../components/CopyButton.tsx";
import { ErrorMessage, StatusMessage } from "../components/ErrorMessage.tsx";
import { PageHeading } from "../components/PageHeading.tsx";
import { RunForm } from "../components/RunForm.tsx";
import { useAction } from "../components/useAction.ts";
import { useLoad } from "../components/useLoad.ts";
import type { EndpointRecord } from "../model.ts";
import { BASE, Link, navigate } from "../router.tsx";
import { EndpointEditor } from "./endpoint/EndpointEditor.tsx";
import { PublishForm } from "./endpoint/PublishForm.tsx";
import { VersionState } from "./endpoint/VersionState.tsx";
import { VersionTimeline } from "./endpoint/VersionTimeline.tsx";
import { endpointHref } from "./EndpointsPage.tsx";

type One = { response: EndpointRecord };

export function EndpointPage({ apiId }: { apiId: number }) {
  const base = `/v1/design-api/${encodeURIComponent(apiId)}`;
  // One read gives this version and its whole lineage (the timeline): each call counts against the per-minute limit.
  const lineage = useLoad((signal) => api.get<EndpointRecord[]>(`${base}/versions`, { signal }), [apiId]);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const action = useAction();
  const { busy, error, status } = action;

  const release = () =>
    action.run(async () => {
      const released = await api.post<One>(`${base}/release`);
      lineage.reload();
      action.setStatus(`Version ${released.response.version} released; it is live now.`);
    });

  const newVersion = (from: EndpointRecord) =>
    action.run(async () => {
      const next = await api.post<One>(`/v1/design-api/${encodeURIComponent(from.id)}/versions`);
      navigate(endpointHref(next.response.id));
    });

  const remove = () =>
    action.run(async () => {
      await api.delete(base);
      navigate(`${BASE}/endpoints`);
    });

  const versions = lineage.data ?? [];
  const data = versions.find((v) => v.id === apiId) ?? null;
  if (!data) {
    return (
      <section>
        <PageHeading title="Endpoint" />
        <ErrorMessage error={lineage.error} />
        {lineage.loading ? <p>Loading the endpoint…</p> : <Link href={`${BASE}/endpoints`}>Back to your endpoints</Link>}
      </section>
    );
  }

  const draft = data.state === "draft";
  return (
    <section>
      <p class="breadcrumb">
        <Link href={`${BASE}/endpoints`}>Endpoints</Link> /
      </p>
      <PageHeading title={data.api_name} />
      <p class="subtitle">
        <code class="wrap">{data.stub}</code>
      </p>
      <VersionState record={data} versions={versions} busy={busy} onRelease={release} onNewDraft={() => newVersion(data)} />
      <ErrorMessage error={error ?? lineage.error} />
      <StatusMessage text={status} />

      <div class="beside">
        <EndpointEditor
          key={`${data.id}-${data.state}`}
          record={data}
          onSaved={(saved) => lineage.set(versions.map((v) => (v.id === saved.id ? saved : v)))}
        />
        <div>
          <section class="card" aria-labelledby="try-heading">
            <h2 id="try-heading">Try it</h2>
            <p class="hint">
              Runs this exact version, <code class="wrap">…/v{data.version}</code>
              {draft ? "; save the draft first to try your edits" : ""}.
            </p>
            <RunForm
              key={`${data.id}-${data.updated_at}`}
              inputs={data.inputs}
              path={`/v1/user-defined-service/${encodeURIComponent(data.stub)}/v${data.version}`}
              idPrefix="try-"
            />
          </section>
          <VersionTimeline versions={versions} currentId={data.id} designedFrom={data.original_prompt} />
        </div>
      </div>

      <details class="card">
        <summary>Integration: URL and code samples</summary>
        <div class="url-row">
          <span>
            URL: <code class="wrap">{data.integration.url}</code>
          </span>
          <CopyButton text={data.integration.url} label="Copy URL" />
        </div>
        <CodeSnippets
          code={{
            ...data.integration.code,
            ...openAiSnippets(data.integration.url, `endpoint:${data.stub}`, data.integration.example_request),
          }}
        />
      </details>

      <PublishForm record={data} onPublished={lineage.reload} />

      <details class="card">
        <summary>Delete this endpoint</summary>
        <p>Deletes every version, permanently. Published marketplace snapshots stay callable.</p>
        <button type="button" class="danger" disabled={busy} onClick={() => setConfirmDelete(true)}>
          Delete endpoint
        </button>
      </details>

      <ConfirmDialog
        open={confirmDelete}
        title="Delete this endpoint?"
        confirmLabel="Yes, delete it"
        busy={busy}
        onConfirm={remove}
        onCancel={() => setConfirmDelete(false)}
      >
        <p>
          Every version of <strong>{data.api_name}</strong> is deleted, permanently. Published marketplace snapshots stay callable.
        </p>
      </ConfirmDialog>
    </section>
  );
}
