/**
 * The draft's form: name, inputs, output format and version notes. Saving
 * sends the PATCH and puts each 422 message on the field its loc names. A
 * released version never changes, so it is shown as text, not as a form
 * whose fields would only refuse.
 */
import { useState } from "preact/hooks";
import { api, ApiError } from "../../api.ts";
import { ErrorMessage, StatusMessage } from "../../components/ErrorMessage.tsx";
import { TextArea, TextInput } from "../../components/Field.tsx";
import { JsonEditor, parseJson } from "../../components/JsonEditor.tsx";
import { SubmitButton } from "../../components/SubmitButton.tsx";
import { InputsTable } from "../../components/InputsTable.tsx";
import { useAction } from "../../components/useAction.ts";
import type { EndpointRecord } from "../../model.ts";
import { fromRows, InputRows, toRows } from "./InputRows.tsx";

interface EditorProps {
  record: EndpointRecord;
  onSaved: (record: EndpointRecord) => void;
}

/** A released version, read-only: what it is, and how to change it (a new draft). */
function ReleasedVersion({ record }: { record: EndpointRecord }) {
  return (
    <section class="card stack" aria-labelledby="edit-heading">
      <h2 id="edit-heading">Version {record.version} (read-only)</h2>
      <p class="note">Released versions cannot change; make a new draft to edit.</p>
      <p>
        <strong>API name:</strong> {record.api_name}
      </p>
      <h3>Inputs</h3>
      <InputsTable inputs={record.inputs} />
      <details>
        <summary>Output format</summary>
        <pre class="code" tabIndex={0} aria-label="Output format">
          {JSON.stringify(record.output_format, null, 2)}
        </pre>
      </details>
      {record.version_notes ? (
        <p>
          <strong>Version notes:</strong> {record.version_notes}
        </p>
      ) : null}
    </section>
  );
}

export function EndpointEditor({ record, onSaved }: EditorProps) {
  if (record.state !== "draft") return <ReleasedVersion record={record} />;
  return <DraftEditor record={record} onSaved={onSaved} />;
}

function DraftEditor({ record, onSaved }: EditorProps) {
  const [apiName, setApiName] = useState(record.api_name);
  const [notes, setNotes] = useState(record.version_notes ?? "");
  const [rows, setRows] = useState(() => toRows(record.inputs));
  const [format, setFormat] = useState(() => JSON.stringify(record.output_format, null, 2));
  const saving = useAction();
  const { busy, error, issues } = saving;

  const save = (e: Event) => {
    e.preventDefault();
    const parsed = parseJson(format);
    if (!parsed.ok) return saving.fail(new ApiError(0, "The output format is not valid JSON.", "json_invalid"));
    void saving.run(async () => {
      const body = { api_name: apiName, inputs: fromRows(rows), output_format: parsed.value ?? null, version_notes: notes.trim() || null };
      const saved = await api.patch<EndpointRecord>(`/v1/design-api/${encodeURIComponent(record.id)}`, body);
      saving.setStatus("Draft saved.");
      onSaved(saved);
    });
  };

  return (
    <form class="card" onSubmit={save} aria-labelledby="edit-heading" noValidate>
      <h2 id="edit-heading">Edit draft v{record.version}</h2>
      <fieldset disabled={busy} class="plain stack">
        <legend class="visually-hidden">Endpoint definition</legend>
        <TextInput label="API name" value={apiName} onValue={setApiName} errors={issues("api_name")} maxLength={200} />
        <fieldset class="group">
          <legend>Inputs</legend>
          {(error instanceof ApiError ? error.only("inputs") : []).map((m) => (
            <p class="field-errors" key={m}>
              {m}
            </p>
          ))}
          <InputRows rows={rows} onChange={setRows} issues={issues} />
        </fieldset>
        <JsonEditor
          label="Output format (JSON)"
          hint="Field names to type names (string, number, integer, boolean, array), nested objects, or one-item arrays of an item shape."
          rows={6}
          value={format}
          onValue={setFormat}
          errors={issues("output_format")}
        />
        <TextArea
          label="Version notes"
          hint="What changed in this version (optional)."
          rows={2}
          value={notes}
          onValue={setNotes}
          errors={issues("version_notes")}
        />
      </fieldset>
      <div class="actions">
        <SubmitButton busy={busy} busyLabel="Saving…">
          Save draft
        </SubmitButton>
      </div>
      <ErrorMessage error={error} />
      <StatusMessage text={saving.status} />
    </form>
  );
}
