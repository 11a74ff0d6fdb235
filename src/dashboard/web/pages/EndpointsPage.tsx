/** Endpoints: design a new one from a description, and the list of yours. */
import { useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { ErrorMessage } from "../components/ErrorMessage.tsx";
import { TextArea } from "../components/Field.tsx";
import { PageHeading } from "../components/PageHeading.tsx";
import { SubmitButton } from "../components/SubmitButton.tsx";
import { useLoad } from "../components/useLoad.ts";
import { formatTime } from "../format.ts";
import type { EndpointRecord } from "../model.ts";
import { BASE, Link, navigate } from "../router.tsx";

export function endpointHref(id: number): string {
  return `${BASE}/endpoints/${encodeURIComponent(id)}`;
}

export function StateBadge({ record }: { record: Pick<EndpointRecord, "state" | "is_live"> }) {
  return (
    <>
      <span class={`badge badge-${record.state}`}>{record.state === "draft" ? "Draft" : "Released"}</span>
      {record.is_live ? <span class="badge badge-live">Live</span> : null}
    </>
  );
}

export function EndpointsPage() {
  const list = useLoad((signal) => api.get<EndpointRecord[]>("/v1/design-api", { signal }), []);
  const [prompt, setPrompt] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const create = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await api.post<{ response: EndpointRecord }>("/v1/design-api", { original_prompt: prompt });
      navigate(endpointHref(created.response.id));
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  const endpoints = list.data ?? [];
  return (
    <section>
      <PageHeading title="Endpoints" />
      <p class="lead">Describe a research task in words and get a private, versioned endpoint with typed inputs and a structured answer.</p>
      <form class="card stack" onSubmit={create} aria-labelledby="design-heading">
        <h2 id="design-heading">Design a new endpoint</h2>
        <TextArea
          label="Task description"
          hint="For example: “Given a company name, find its CEO, founding year and whether it is publicly traded”."
          rows={3}
          required
          value={prompt}
          onValue={setPrompt}
          errors={error instanceof ApiError ? error.at("original_prompt") : []}
        />
        <div class="actions">
          <SubmitButton busy={busy} busyLabel="Designing…">
            Design endpoint
          </SubmitButton>
        </div>
        <ErrorMessage error={error} />
      </form>

      <h2>Your endpoints</h2>
      <ErrorMessage error={list.error} />
      {list.data === null ? (
        list.loading ? (
          <p>Loading endpoints…</p>
        ) : null
      ) : endpoints.length === 0 ? (
        <p>No endpoints yet: design one above.</p>
      ) : (
        <ul class="cards">
          {endpoints.map((record) => (
            <li key={record.id} class="card">
              <h3>
                <Link href={endpointHref(record.id)}>{record.api_name}</Link>
              </h3>
              <p>
                <code class="wrap">{record.stub}</code> · version {record.version} <StateBadge record={record} />
                {record.live_version !== record.version ? <span class="muted"> · live: v{record.live_version}</span> : null}
              </p>
              <p class="muted">Updated {formatTime(record.updated_at)}</p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
