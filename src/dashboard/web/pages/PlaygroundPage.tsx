/** Playground: run a search and watch the answer stream in, with the equivalent curl command. */
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { CopyButton } from "../components/CopyButton.tsx";
import { DomainFilter, domainFields, NO_DOMAINS, type DomainChoice } from "../components/DomainFilter.tsx";
import { ErrorMessage, StatusMessage, type StatusTone } from "../components/ErrorMessage.tsx";
import { TextArea } from "../components/Field.tsx";
import { ImagePicker } from "../components/ImagePicker.tsx";
import { JsonEditor, parseJson } from "../components/JsonEditor.tsx";
import { PageHeading } from "../components/PageHeading.tsx";
import { SearchAnswer } from "../components/SearchAnswer.tsx";
import { curlCommand } from "../components/shell.ts";
import { useRetryCountdown } from "../components/useRetryCountdown.ts";
import type { SearchResult } from "../model.ts";
import { streamSearch } from "../stream.ts";

const DOMAIN_NAMES = { only: "source_whitelist", never: "source_blacklist" };
const IMAGE_PLACEHOLDER = "<your image as a base64 data URL>";

function searchBody(prompt: string, image: string | null, domains: DomainChoice, format: unknown): Record<string, unknown> {
  const body: Record<string, unknown> = { prompt };
  if (image) body.image = image;
  Object.assign(body, domainFields(domains, DOMAIN_NAMES));
  if (format !== undefined) body.output_format = format;
  return body;
}

export function PlaygroundPage() {
  const [prompt, setPrompt] = useState("");
  const [image, setImage] = useState<string | null>(null);
  const [domains, setDomains] = useState<DomainChoice>(NO_DOMAINS);
  const [format, setFormat] = useState("");
  const [result, setResult] = useState<SearchResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [running, setRunning] = useState(false);
  const [status, setStatus] = useState("");
  const [statusTone, setStatusTone] = useState<StatusTone>("neutral");
  const stop = useRef<(() => void) | null>(null);
  const wait = useRetryCountdown(error);

  // Leaving the page ends the run rather than leaving a socket open.
  useEffect(() => () => stop.current?.(), []);

  const parsedFormat = parseJson(format);
  const body = searchBody(prompt, image, domains, parsedFormat.ok ? parsedFormat.value : undefined);
  const curl = curlCommand(`${location.origin}/v1/search`, image ? { ...body, image: IMAGE_PLACEHOLDER } : body);

  const run = (e: Event) => {
    e.preventDefault();
    if (!parsedFormat.ok) {
      document.querySelector<HTMLTextAreaElement>("textarea[aria-invalid]")?.focus();
      return;
    }
    setError(null);
    setResult({ response: "", context: [] });
    setRunning(true);
    setStatus("Searching…");
    setStatusTone("neutral");
    let sources = 0;
    let failed = false;
    stop.current = streamSearch(body, {
      onContext: (context) => {
        sources = context.length;
        setResult((r) => ({ response: r?.response ?? "", context }));
      },
      onResponse: (content) =>
        setResult((r) => ({
          context: r?.context ?? [],
          response: typeof content === "string" && typeof r?.response === "string" ? r.response + content : content,
        })),
      onInfo: (info) => setResult((r) => (r ? { ...r, info } : r)),
      onError: (err) => {
        failed = true;
        setError(err);
        // Keep what already arrived; drop an answer area that never got anything.
        setResult((r) => (r && (r.response || r.context.length > 0) ? r : null));
      },
      onEnd: (stopped) => {
        stop.current = null;
        setRunning(false);
        setStatusTone(stopped ? "neutral" : failed ? "failure" : "success");
        setStatus(
          stopped
            ? "Search stopped."
            : failed
              ? "The search failed."
              : `Search finished with ${sources} ${sources === 1 ? "source" : "sources"}.`,
        );
      },
    });
  };

  const cancel = () => stop.current?.();

  const issues = (path: string) => (error instanceof ApiError ? error.at(path) : []);
  return (
    <section>
      <PageHeading title="Playground" />
      <p class="lead">
        Ask a question; the service searches, reads and answers with cited sources. The answer streams in over a WebSocket.
      </p>
      <div class="split">
        <form class="card stack" onSubmit={run} aria-label="Search request">
          <TextArea label="Prompt" rows={4} required value={prompt} onValue={setPrompt} errors={issues("prompt")} />
          <ImagePicker value={image} onChange={setImage} errors={issues("image")} />
          <DomainFilter
            value={domains}
            onChange={setDomains}
            names={DOMAIN_NAMES}
            errors={[...issues("source_whitelist"), ...issues("source_blacklist")]}
          />
          <JsonEditor
            label="Output format (JSON, optional)"
            hint={
              <>
                Type names, nested objects or one-item arrays, e.g. <code>{'{"name": "string", "year": "integer"}'}</code>. Leave empty for
                a text answer.
              </>
            }
            rows={5}
            value={format}
            onValue={setFormat}
            errors={issues("output_format")}
          />
          <div class="actions">
            <button type="submit" disabled={running || wait > 0}>
              {running ? "Running…" : wait > 0 ? `Run (in ${wait} s)` : "Run"}
            </button>
            {running ? (
              <button type="button" class="secondary" onClick={cancel}>
                Stop
              </button>
            ) : null}
          </div>
          <ErrorMessage error={error} />
          <StatusMessage text={status} tone={statusTone} />
        </form>
        <div class="results">
          {result ? <SearchAnswer result={result} idPrefix="pg-" streaming={running} /> : <p class="muted">The answer appears here.</p>}
          <section class="card" aria-labelledby="curl-heading">
            <div class="section-head">
              <h2 id="curl-heading">The same call with curl</h2>
              <CopyButton text={curl} label="Copy curl command" />
            </div>
            <pre class="code" tabIndex={0} aria-labelledby="curl-heading">
              {curl}
            </pre>
            {image ? <p class="hint">The image is left out above; put its base64 data URL in the body's "image".</p> : null}
            <p class="hint">
              Set CRITIQUE_API_KEY to one of <a href="/dashboard/keys">your keys</a> first.
            </p>
          </section>
        </div>
      </div>
    </section>
  );
}
