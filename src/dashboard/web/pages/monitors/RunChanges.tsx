/**
 * What changed in a monitor's answer from the run before, readably: a
 * structured answer's fields with their value before and after, or prose's
 * sources and claims added and removed.
 */
import type { MonitorChanges, MonitorRun } from "../../model.ts";

/** The comparison in a few words, for the runs table. */
export function changeSummary(run: Pick<MonitorRun, "status" | "monitor">): string {
  if (!run.monitor) return run.status === "succeeded" ? "Not compared" : "—";
  if (!run.monitor.compared) return "First answer";
  return run.monitor.changed ? "Changed" : "No change";
}

const show = (value: unknown) =>
  value === null || value === undefined ? "(none)" : typeof value === "string" ? value : JSON.stringify(value);

function Listed({ title, items, mark }: { title: string; items: string[]; mark: "added" | "removed" }) {
  if (items.length === 0) return null;
  return (
    <div class={`change-list change-${mark}`}>
      <p class="change-title">{title}</p>
      <ul>
        {items.map((item) => (
          <li key={item} class="wrap-anywhere">
            {item}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function RunChanges({ changes, label }: { changes: MonitorChanges; label: string }) {
  if (changes.kind === "shape")
    return (
      <p class="changes" role="group" aria-label={label}>
        The answer was {changes.before === "structured" ? "structured" : "prose"} and is now{" "}
        {changes.after === "structured" ? "structured" : "prose"}.
      </p>
    );
  if (changes.kind === "fields")
    return (
      <div class="changes" role="group" aria-label={label}>
        <dl class="field-changes">
          {changes.fields.map((field) => (
            <div key={field.path}>
              <dt>
                <code class="wrap">{field.path}</code>
              </dt>
              <dd>
                <span class="before">
                  <span class="visually-hidden">before: </span>
                  <del>{show(field.before)}</del>
                </span>{" "}
                <span aria-hidden="true">→</span>{" "}
                <span class="after">
                  <span class="visually-hidden">after: </span>
                  <ins>{show(field.after)}</ins>
                </span>
              </dd>
            </div>
          ))}
        </dl>
      </div>
    );
  return (
    <div class="changes" role="group" aria-label={label}>
      <Listed title="Sources added" items={changes.sources.added} mark="added" />
      <Listed title="Sources no longer cited" items={changes.sources.removed} mark="removed" />
      <Listed title="Claims added" items={changes.claims.added} mark="added" />
      <Listed title="Claims removed" items={changes.claims.removed} mark="removed" />
    </div>
  );
}
