/**
 * The inputs of a draft as editable rows: name, type, required, default,
 * description. Each row folds under a one-line summary ("city · string ·
 * optional, default Paris"): open on a wide screen, folded on a phone, where
 * four open rows took two screens; a row added, or one with an error, opens.
 */
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { Field } from "../../components/Field.tsx";
import type { EndpointInput, InputType } from "../../model.ts";

export interface InputRow {
  /** Keeps a row's identity (and focus) while rows above it are removed. */
  key: number;
  name: string;
  type: InputType;
  required: boolean;
  defaultText: string;
  description: string;
}

let nextKey = 1;

export function toRows(inputs: EndpointInput[]): InputRow[] {
  return inputs.map((input) => ({
    key: nextKey++,
    name: input.name,
    type: input.type,
    required: input.required ?? true,
    defaultText: input.default === null || input.default === undefined ? "" : String(input.default),
    description: input.description ?? "",
  }));
}

export function emptyRow(): InputRow {
  return { key: nextKey++, name: "", type: "string", required: true, defaultText: "", description: "" };
}

/**
 * Rows to the API's inputs. A default that does not read as its type is sent
 * as typed, so the API's own message ("default must be a number") comes back.
 */
export function fromRows(rows: InputRow[]): EndpointInput[] {
  return rows.map((row) => {
    const text = row.defaultText.trim();
    let value: string | number | boolean | null = text === "" ? null : row.defaultText;
    if (text !== "" && row.type === "number" && Number.isFinite(Number(text))) value = Number(text);
    if (row.type === "boolean" && (text === "true" || text === "false")) value = text === "true";
    return { name: row.name.trim(), type: row.type, required: row.required, default: value, description: row.description.trim() || null };
  });
}

interface InputRowsProps {
  rows: InputRow[];
  onChange: (rows: InputRow[]) => void;
  issues: (path: string) => string[];
}

function summaryOf(row: InputRow): string {
  const fallback = row.defaultText.trim() === "" ? "" : `, default ${row.defaultText.trim()}`;
  return `${row.name.trim() || "(no name)"} · ${row.type} · ${row.required ? "required" : "optional"}${fallback}`;
}

const wideScreen = () => typeof matchMedia === "function" && matchMedia("(min-width: 1100px)").matches;

export function InputRows({ rows, onChange, issues }: InputRowsProps) {
  const box = useRef<HTMLDivElement>(null);
  const [opened, setOpened] = useState<Set<number>>(() => new Set(wideScreen() ? rows.map((r) => r.key) : []));
  const setOpen = (key: number, open: boolean) =>
    setOpened((all) => {
      if (all.has(key) === open) return all;
      const next = new Set(all);
      if (open) next.add(key);
      else next.delete(key);
      return next;
    });
  // Where keyboard focus goes after a row is added or removed (the removed button is gone with its row).
  const focusNext = useRef<number | "add" | null>(null);
  useLayoutEffect(() => {
    const target = focusNext.current;
    focusNext.current = null;
    if (target === null || !box.current) return;
    const rowBoxes = box.current.querySelectorAll<HTMLDetailsElement>("details.input-box");
    const row = typeof target === "number" ? rowBoxes[target] : undefined;
    // A folded row's name field cannot take focus: its summary does.
    const name = row?.open ? row.querySelector<HTMLInputElement>("input.mono") : row?.querySelector("summary");
    (target === "add" ? box.current.querySelector<HTMLButtonElement>(".add-input") : name)?.focus();
  });
  const update = (index: number, patch: Partial<InputRow>) => onChange(rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  const remove = (index: number) => {
    focusNext.current = rows.length > 1 ? Math.min(index, rows.length - 2) : "add";
    onChange(rows.filter((_, i) => i !== index));
  };
  const add = () => {
    focusNext.current = rows.length;
    const row = emptyRow();
    setOpen(row.key, true);
    onChange([...rows, row]);
  };
  return (
    <div class="input-rows" ref={box}>
      {rows.length === 0 ? <p class="muted">No inputs.</p> : null}
      {rows.map((row, i) => {
        const at = (field: string) => issues(`inputs.${i}.${field}`);
        const title = `Input ${i + 1}${row.name ? `: ${row.name}` : ""}`;
        const faulty = ["name", "type", "default", "description", "required"].some((field) => at(field).length > 0);
        return (
          <details
            key={row.key}
            class="input-box"
            open={faulty || opened.has(row.key)}
            onToggle={(e) => setOpen(row.key, e.currentTarget.open)}
          >
            <summary>
              Input {i + 1}: <span class="summary-detail">{summaryOf(row)}</span>
            </summary>
            <fieldset class="input-row">
              <legend class="visually-hidden">{title}</legend>
              <Field label="Name" errors={at("name")}>
                {(c) => (
                  <input
                    {...c}
                    class="mono"
                    value={row.name}
                    autocapitalize="off"
                    spellcheck={false}
                    onInput={(e) => update(i, { name: e.currentTarget.value })}
                  />
                )}
              </Field>
              <Field label="Type" errors={at("type")}>
                {(c) => (
                  <select {...c} value={row.type} onChange={(e) => update(i, { type: e.currentTarget.value as InputType })}>
                    <option value="string">string</option>
                    <option value="number">number</option>
                    <option value="boolean">boolean</option>
                  </select>
                )}
              </Field>
              <Field label="Default" hint={row.type === "boolean" ? "true, false, or empty" : "Empty: no default"} errors={at("default")}>
                {(c) => <input {...c} value={row.defaultText} onInput={(e) => update(i, { defaultText: e.currentTarget.value })} />}
              </Field>
              <Field label="Description" class="wide" errors={at("description")}>
                {(c) => <input {...c} value={row.description} onInput={(e) => update(i, { description: e.currentTarget.value })} />}
              </Field>
              <div class="row-end">
                <label class="check">
                  <input type="checkbox" checked={row.required} onChange={(e) => update(i, { required: e.currentTarget.checked })} />
                  Required
                </label>
                {at("required").map((m) => (
                  <p class="field-errors" key={m}>
                    {m}
                  </p>
                ))}
                <button type="button" class="secondary small" onClick={() => remove(i)} aria-label={`Remove ${title}`}>
                  Remove
                </button>
              </div>
            </fieldset>
          </details>
        );
      })}
      <button type="button" class="secondary add-input" onClick={add}>
        Add input
      </button>
    </div>
  );
}
