/**
 * A labelled form control with its hint and its errors tied to it
 * (aria-describedby, aria-invalid), so a message from the API sits next to,
 * and is read with, the field it names.
 */
import type { ComponentChildren, JSX } from "preact";
import { useId } from "preact/hooks";

export interface ControlProps {
  id: string;
  "aria-describedby"?: string;
  "aria-invalid"?: boolean;
}

interface FieldProps {
  label: ComponentChildren;
  hint?: ComponentChildren;
  errors?: string[];
  /** Shows "required" next to the label (the control carries `required` itself). */
  markRequired?: boolean;
  class?: string;
  children: (control: ControlProps) => JSX.Element;
}

export function Field({ label, hint, errors = [], markRequired, class: className, children }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : "";
  const errorId = errors.length > 0 ? `${id}-error` : "";
  const describedBy = [hintId, errorId].filter(Boolean).join(" ");
  return (
    <div class={`field${errors.length > 0 ? " field-invalid" : ""}${className ? ` ${className}` : ""}`}>
      <label for={id}>
        {label}
        {markRequired ? <span class="required-mark"> (required)</span> : null}
      </label>
      {hint ? (
        <p class="hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {children({ id, "aria-describedby": describedBy || undefined, "aria-invalid": errors.length > 0 || undefined })}
      {errors.length > 0 ? (
        <ul class="field-errors" id={errorId}>
          {errors.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

interface CommonProps {
  label: ComponentChildren;
  value: string;
  onValue: (value: string) => void;
  hint?: ComponentChildren;
  errors?: string[];
  markRequired?: boolean;
  required?: boolean;
  maxLength?: number;
  autocomplete?: string;
}

interface TextInputProps extends CommonProps {
  type?: "text" | "email" | "password" | "number" | "search" | "url";
  inputMode?: "decimal" | "numeric" | "text" | "email";
  step?: string;
}

export function TextInput({ label, value, onValue, hint, errors, markRequired, type = "text", ...attrs }: TextInputProps) {
  return (
    <Field label={label} hint={hint} errors={errors} markRequired={markRequired}>
      {/* Preact's types split <input> by type (for ARIA roles); these attributes suit every type allowed here. */}
      {(control) => <input {...attrs} {...control} type={type as "text"} value={value} onInput={(e) => onValue(e.currentTarget.value)} />}
    </Field>
  );
}

interface TextAreaProps extends CommonProps {
  rows?: number;
}

export function TextArea({ label, value, onValue, hint, errors, markRequired, ...attrs }: TextAreaProps) {
  return (
    <Field label={label} hint={hint} errors={errors} markRequired={markRequired}>
      {(control) => <textarea {...attrs} {...control} value={value} onInput={(e) => onValue(e.currentTarget.value)} />}
    </Field>
  );
}
