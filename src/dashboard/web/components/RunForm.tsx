/**
 * "Try it": a form generated from an endpoint's inputs (typed fields,
 * required ones marked, defaults filled in) that calls it and shows the
 * answer. The browser's own validation is off so the endpoint's answers
 * (a 400 naming missing inputs, a 422 on a wrong type) are what you see.
 */
import { useState } from "preact/hooks";
import { postForRun } from "../api.ts";
import type { EndpointInput, SearchResult } from "../model.ts";
import { DomainFilter, domainFields, NO_DOMAINS, type DomainChoice } from "./DomainFilter.tsx";
import { ErrorMessage, StatusMessage } from "./ErrorMessage.tsx";
import { Field } from "./Field.tsx";
import { SearchAnswer } from "./SearchAnswer.tsx";
import { SubmitButton } from "./SubmitButton.tsx";
import { useAction } from "./useAction.ts";
import { useRetryCountdown } from "./useRetryCountdown.ts";

const DOMAIN_NAMES = { only: "include_domains", never: "exclude_domains" };

function isRequired(input: EndpointInput): boolean {
  return (input.required ?? true) && (input.default === null || input.default === undefined);
}

function initialValues(inputs: EndpointInput[]): Record<string, string> {
  return Object.fromEntries(inputs.map((i) => [i.name, i.default === null || i.default === undefined ? "" : String(i.default)]));
}

/** An empty field is left out so the endpoint applies its default; typed values go as their type. */
export function runBody(inputs: EndpointInput[], values: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const input of inputs) {
    const raw = values[input.name] ?? "";
    if (raw.trim() === "") continue;
    if (input.type === "number") body[input.name] = Number.isFinite(Number(raw)) ? Number(raw) : raw;
    else if (input.type === "boolean") body[input.name] = raw === "true" ? true : raw === "false" ? false : raw;
    else body[input.name] = raw;
  }
  return body;
}

function InputControl({
  input,
  value,
  onValue,
  errors,
}: {
  input: EndpointInput;
  value: string;
  onValue: (v: string) => void;
  errors: string[];
}) {
  const required = isRequired(input);
  const hint = [input.description, input.default !== null && input.default !== undefined ? `Default: ${String(input.default)}` : null]
    .filter(Boolean)
    .join(" · ");
  return (
    <Field label={<code>{input.name}</code>} hint={hint || undefined} errors={errors} markRequired={required}>
      {(control) =>
        input.type === "boolean" ? (
          <select {...control} required={required} value={value} onChange={(e) => onValue(e.currentTarget.value)}>
            <option value="">{required ? "Choose…" : "Not set"}</option>
            <option value="true">true</option>
            <option value="false">false</option>
          </select>
        ) : input.type === "number" ? (
          <input {...control} type="number" step="any" required={required} value={value} onInput={(e) => onValue(e.currentTarget.value)} />
        ) : (
          <input {...control} type="text" required={required} value={value} onInput={(e) => onValue(e.currentTarget.value)} />
        )
      }
    </Field>
  );
}

interface RunFormProps {
  inputs: EndpointInput[];
  /** The path to POST to, e.g. /v1/user-defined-service/{stub}/v2. */
  path: string;
  idPrefix: string;
  submitLabel?: string;
}

export function RunForm({ inputs, path, idPrefix, submitLabel = "Run" }: RunFormProps) {
  const [values, setValues] = useState(() => initialValues(inputs));
  const [domains, setDomains] = useState<DomainChoice>(NO_DOMAINS);
  const [result, setResult] = useState<SearchResult | null>(null);
  const [requestId, setRequestId] = useState<string | null>(null);
  const [elapsedMs, setElapsedMs] = useState<number | null>(null);
  const call = useAction();
  const { issues } = call;
  const wait = useRetryCountdown(call.error);

  const submit = async (e: Event) => {
    e.preventDefault();
    const done = await call.run(async () => {
      const started = performance.now();
      const run = await postForRun<SearchResult>(path, { ...runBody(inputs, values), ...domainFields(domains, DOMAIN_NAMES) });
      setResult(run.answer);
      setRequestId(run.requestId);
      setElapsedMs(performance.now() - started);
      const tokens = run.answer.info?.token_usage;
      call.setStatus(`Done${tokens === undefined ? "" : `: ${tokens} tokens`}.`);
    }, "Running…");
    if (!done) setResult(null);
  };

  return (
    <div class="run">
      <form class="stack" noValidate onSubmit={submit} aria-label="Try it">
        {inputs.length === 0 ? <p class="muted">This endpoint takes no inputs.</p> : null}
        {inputs.map((input) => (
          <InputControl
            key={input.name}
            input={input}
            value={values[input.name] ?? ""}
            onValue={(v) => setValues((all) => ({ ...all, [input.name]: v }))}
            errors={issues(input.name)}
          />
        ))}
        <DomainFilter
          value={domains}
          onChange={setDomains}
          names={DOMAIN_NAMES}
          errors={[...issues("include_domains"), ...issues("exclude_domains")]}
        />
        <SubmitButton busy={call.busy} busyLabel="Running…" wait={wait}>
          {submitLabel}
        </SubmitButton>
        <ErrorMessage error={call.error} />
        <StatusMessage text={call.status} />
      </form>
      {result ? (
        <div>
          <SearchAnswer result={result} idPrefix={idPrefix} headingLevel={3} requestId={requestId} elapsedMs={elapsedMs} />
          <details>
            <summary>Raw response</summary>
            <pre class="code" tabIndex={0}>
              {JSON.stringify(result, null, 2)}
            </pre>
          </details>
        </div>
      ) : null}
    </div>
  );
}
