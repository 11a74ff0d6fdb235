/** A list's status filter: a select of the statuses a list can be narrowed to ("" for all). */
import { Field } from "./Field.tsx";

export function StatusFilter<S extends string>({
  value,
  options,
  onChange,
}: {
  value: "" | S;
  options: { value: "" | S; label: string }[];
  onChange: (status: "" | S) => void;
}) {
  return (
    <Field label="Status" class="short">
      {(control) => (
        <select {...control} value={value} onChange={(e) => onChange(e.currentTarget.value as "" | S)}>
          {options.map((s) => (
            <option key={s.value} value={s.value}>
              {s.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
