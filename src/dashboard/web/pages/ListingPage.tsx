/** One published endpoint: what it does, its versions and schemas, an example, and "try it". */
import { openAiSnippets } from "../openai-snippets.ts";
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { CodeSnippets } from "../components/CodeSnippets.tsx";
import { ErrorMessage } from "../components/ErrorMessage.tsx";
import { Field } from "../components/Field.tsx";
import { InputsTable } from "../components/InputsTable.tsx";
import { PageHeading } from "../components/PageHeading.tsx";
import { RunForm } from "../components/RunForm.tsx";
import { useAction } from "../components/useAction.ts";
import { useLoad } from "../components/useLoad.ts";
import { formatTime } from "../format.ts";
import type { ListingDetail, Subscription } from "../model.ts";
import { BASE, Link } from "../router.tsx";
import { ListingPrice } from "./marketplace/ListingPrice.tsx";

/** "Use in my agents": the listing among the account's MCP tools, or not. */
function AgentsToggle({ publicStub }: { publicStub: string }) {
  const path = `/v1/marketplace/${encodeURIComponent(publicStub)}/subscribe`;
  const state = useLoad((signal) => api.get<Subscription>(path, { signal }), [publicStub]);
  const [subscribed, setSubscribed] = useState<boolean | null>(null);
  const toggling = useAction();
  const on = subscribed ?? state.data?.subscribed ?? false;
  const toggle = (next: boolean) =>
    toggling.run(async () => {
      const answer = next ? await api.post<Subscription>(path) : await api.delete<Subscription>(path);
      setSubscribed(answer.subscribed);
    });
  return (
    <section class="card" aria-labelledby="listing-agents-heading">
      <h2 id="listing-agents-heading">Use in my agents</h2>
      <label class="check">
        <input
          type="checkbox"
          checked={on}
          disabled={toggling.busy || state.loading}
          onChange={(e) => void toggle(e.currentTarget.checked)}
        />
        List it among my MCP tools
      </label>
      <p class="hint">
        Your agents reach it through <code class="wrap">{`${location.origin}/mcp`}</code> as the tool <code>{publicStub}</code>; each call
        is billed to your account.
      </p>
      <ErrorMessage error={toggling.error ?? state.error} />
    </section>
  );
}

export function ListingPage({ publicStub }: { publicStub: string }) {
  const listing = useLoad(
    (signal) => api.get<ListingDetail>(`/v1/marketplace/${encodeURIComponent(publicStub)}`, { signal }),
    [publicStub],
  );
  const [version, setVersion] = useState("");
  const data = listing.data;
  const back = <Link href={`${BASE}/marketplace`}>Marketplace</Link>;
  if (!data) {
    return (
      <section>
        <PageHeading title="Published endpoint" />
        <ErrorMessage error={listing.error} />
        {listing.loading ? <p>Loading…</p> : <p>{back}</p>}
      </section>
    );
  }
  const runPath = `/v1/published-service/${encodeURIComponent(data.public_stub)}${version ? `/v${version}` : ""}`;
  return (
    <section>
      <p class="breadcrumb">{back} /</p>
      <PageHeading title={data.title} />
      <p class="subtitle">
        By {data.publisher} · newest version {data.latest_version}
        {data.category ? ` · ${data.category}` : ""} · <code class="wrap">{data.public_stub}</code>
      </p>
      <p>{data.description}</p>
      <ListingPrice pricing={data.pricing} />
      {data.tags.length > 0 ? (
        <ul class="tags" aria-label="Tags">
          {data.tags.map((t) => (
            <li key={t}>{t}</li>
          ))}
        </ul>
      ) : null}

      <div class="split main-side">
        <section class="card" aria-labelledby="schema-heading">
          <h2 id="schema-heading">Inputs</h2>
          <InputsTable inputs={data.inputs} />
          <h2>Response</h2>
          <p class="hint">The shape of the answer's "response" (output format):</p>
          <pre class="code" tabIndex={0} aria-label="Output format">
            {JSON.stringify(data.output_format, null, 2)}
          </pre>
          <details>
            <summary>Request and response JSON Schemas</summary>
            <h3>Request schema</h3>
            <pre class="code" tabIndex={0}>
              {JSON.stringify(data.integration.request_schema, null, 2)}
            </pre>
            <h3>Response schema</h3>
            <pre class="code" tabIndex={0}>
              {JSON.stringify(data.integration.response_schema, null, 2)}
            </pre>
          </details>
          <h2>Example request</h2>
          <pre class="code" tabIndex={0} aria-label="Example request">
            {JSON.stringify(data.example_request, null, 2)}
          </pre>
        </section>
        <section class="card" aria-labelledby="listing-versions-heading">
          <h2 id="listing-versions-heading">Versions</h2>
          <ol class="timeline" reversed>
            {[...data.versions].reverse().map((v) => (
              <li key={v.version}>
                <div class="timeline-head">
                  Version {v.version}
                  {v.version === data.latest_version ? <span class="badge badge-live">Newest</span> : null}
                </div>
                <p class="muted">Published {formatTime(v.published_at)}</p>
                {v.version_notes ? <p class="notes">{v.version_notes}</p> : null}
              </li>
            ))}
          </ol>
        </section>
      </div>

      <section class="card" aria-labelledby="listing-try-heading">
        <h2 id="listing-try-heading">Try it</h2>
        <Field label="Version to call" hint="The form shows the newest version's inputs." class="short">
          {(control) => (
            <select {...control} value={version} onChange={(e) => setVersion(e.currentTarget.value)}>
              <option value="">Newest (v{data.latest_version})</option>
              {[...data.versions].reverse().map((v) => (
                <option key={v.version} value={String(v.version)}>
                  Version {v.version}
                </option>
              ))}
            </select>
          )}
        </Field>
        <p class="hint">
          Calls <code class="wrap">POST {runPath}</code>; the call is billed to your account.
        </p>
        <RunForm inputs={data.inputs} path={runPath} idPrefix="market-" />
      </section>

      <AgentsToggle publicStub={data.public_stub} />

      <section class="card" aria-labelledby="listing-integration-heading">
        <h2 id="listing-integration-heading">Integration</h2>
        <CodeSnippets
          code={{
            ...data.integration.code,
            ...openAiSnippets(data.integration.url, `published:${data.public_stub}`, data.integration.example_request),
          }}
        />
      </section>
    </section>
  );
}
