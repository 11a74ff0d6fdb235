/**
 * The draft's form: name, inputs, output format and version notes. Saving
 * sends the PATCH and puts each 422 message on the field its loc names; a
 * released version shows the same form, read-only.
 */
import { useState } from "preact/hooks";
import { api, ApiError } from "../../api.ts";
import { ErrorMessage, StatusMessage } from "../../components/ErrorMessage.tsx";
import { TextArea, TextInput } from "../../components/Field.tsx";
import { JsonEditor, parseJson } from "../../components/JsonEditor.tsx";
import { SubmitButton } from "../../components/SubmitButton.tsx";
import { useAction } from "../../components/useAction.ts";
import type { EndpointRecord } from "../../model.ts";
import { fromRows, InputRows, toRows } from "./InputRows.tsx";

interface EditorProps {
  record: EndpointRecord;
  onSaved: (record: EndpointRecord) => void;
}

export function EndpointEditor({ record, onSaved }: EditorProps) {
  const draft = record.state === "draft";
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
      <h2 id="edit-heading">{draft ? `Edit draft v${record.version}` : `Version ${record.version} (read-only)`}</h2>
      {draft ? null : <p class="hint">Released versions never change. Start a new version to edit a copy.</p>}
      <fieldset disabled={!draft || busy} class="plain stack">
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
          rows={8}
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
      {draft ? (
        <div class="actions">
          <SubmitButton busy={busy} busyLabel="Saving…">
            Save draft
          </SubmitButton>
        </div>
      ) : null}
      <ErrorMessage error={error} />
      <StatusMessage text={saving.status} />
    </form>
  );
}
