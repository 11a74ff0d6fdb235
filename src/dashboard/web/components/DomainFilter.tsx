/**
 * Which sources a run may use: any, only some domains, or never some. The
 * API takes one list or the other, never both, so the choice is one radio
 * group and one list.
 */
import { useId } from "preact/hooks";
import { Field } from "./Field.tsx";

export type DomainMode = "any" | "only" | "never";

export interface DomainChoice {
  mode: DomainMode;
  text: string;
}

export const NO_DOMAINS: DomainChoice = { mode: "any", text: "" };

/** One domain or URL prefix per line (commas work too); blanks dropped. */
export function domainList(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((d) => d.trim())
    .filter(Boolean);
}

interface DomainFilterProps {
  value: DomainChoice;
  onChange: (value: DomainChoice) => void;
  /** The body field names for "only" and "never" (search: source_whitelist; endpoints: include_domains). */
  names: { only: string; never: string };
  errors?: string[];
}

export function DomainFilter({ value, onChange, names, errors = [] }: DomainFilterProps) {
  const group = useId();
  const options: { mode: DomainMode; label: string }[] = [
    { mode: "any", label: "Any source" },
    { mode: "only", label: `Only these domains (${names.only})` },
    { mode: "never", label: `Never these domains (${names.never})` },
  ];
  return (
    <fieldset class="domains">
      <legend>Sources</legend>
      <div class="radios">
        {options.map((option) => (
          <label key={option.mode} class="radio">
            <input
              type="radio"
              name={group}
              value={option.mode}
              checked={value.mode === option.mode}
              onChange={() => onChange({ ...value, mode: option.mode })}
            />
            {option.label}
          </label>
        ))}
      </div>
      {value.mode !== "any" ? (
        <Field label="Domain list" hint="One per line: example.com also covers its subdomains; a URL prefix works too." errors={errors}>
          {(control) => (
            <textarea
              {...control}
              class="mono"
              rows={3}
              spellcheck={false}
              autocapitalize="off"
              value={value.text}
              onInput={(e) => onChange({ ...value, text: e.currentTarget.value })}
            />
          )}
        </Field>
      ) : null}
    </fieldset>
  );
}

/** The body fields for a choice: nothing, or one list under its name. */
export function domainFields(value: DomainChoice, names: { only: string; never: string }): Record<string, string[]> {
  if (value.mode === "any") return {};
  return { [value.mode === "only" ? names.only : names.never]: domainList(value.text) };
}
