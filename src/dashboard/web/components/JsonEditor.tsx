/**
 * A JSON text box that says at once when the text is not JSON (with the
 * parser's position), and shows the API's messages for the field it edits.
 */
import type { ComponentChildren } from "preact";
import { Field } from "./Field.tsx";

export type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

export function parseJson(text: string): Parsed {
  if (text.trim() === "") return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: `Not valid JSON: ${(error as Error).message}` };
  }
}

interface JsonEditorProps {
  label: ComponentChildren;
  hint?: ComponentChildren;
  value: string;
  onValue: (text: string) => void;
  /** Messages from the API for this field. */
  errors?: string[];
  rows?: number;
  readOnly?: boolean;
}

export function JsonEditor({ label, hint, value, onValue, errors = [], rows = 8, readOnly }: JsonEditorProps) {
  const parsed = parseJson(value);
  const all = parsed.ok ? errors : [parsed.message, ...errors];
  return (
    <Field label={label} hint={hint} errors={all}>
      {(control) => (
        <textarea
          {...control}
          class="mono"
          rows={rows}
          spellcheck={false}
          autocapitalize="off"
          readOnly={readOnly}
          value={value}
          onInput={(e) => onValue(e.currentTarget.value)}
        />
      )}
    </Field>
  );
}
