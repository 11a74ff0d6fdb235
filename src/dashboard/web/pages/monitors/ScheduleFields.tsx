/**
 * A monitor's schedule as a form asks for it: every N minutes, or a cron
 * expression (UTC). The API's messages show at the field they name
 * (schedule.every_minutes, schedule.cron), or above both when they are
 * about the schedule as a whole.
 */
import { useId } from "preact/hooks";
import { ApiError } from "../../api.ts";
import { TextInput } from "../../components/Field.tsx";
import type { MonitorSchedule } from "../../model.ts";

export interface ScheduleDraft {
  mode: "every" | "cron";
  minutes: string;
  cron: string;
}

export function draftOf(schedule: MonitorSchedule | null): ScheduleDraft {
  if (schedule && "cron" in schedule) return { mode: "cron", minutes: "60", cron: schedule.cron };
  return { mode: "every", minutes: String(schedule?.every_minutes ?? 60), cron: "" };
}

/** The schedule to send; a number the browser cannot read is sent as typed, for the API to say why. */
export function scheduleOf(draft: ScheduleDraft): MonitorSchedule | { every_minutes: string } {
  if (draft.mode === "cron") return { cron: draft.cron.trim() };
  const minutes = Number(draft.minutes);
  if (draft.minutes.trim() === "" || !Number.isFinite(minutes)) return { every_minutes: draft.minutes };
  return { every_minutes: minutes };
}

export function ScheduleFields({ value, onChange, error }: { value: ScheduleDraft; onChange: (d: ScheduleDraft) => void; error: unknown }) {
  const group = useId();
  const issues = error instanceof ApiError ? error : null;
  const whole = issues?.only("schedule") ?? [];
  return (
    <fieldset class="group">
      <legend>Schedule</legend>
      <div class="radios">
        <label class="radio">
          <input type="radio" name={group} checked={value.mode === "every"} onChange={() => onChange({ ...value, mode: "every" })} />
          Every few minutes
        </label>
        <label class="radio">
          <input type="radio" name={group} checked={value.mode === "cron"} onChange={() => onChange({ ...value, mode: "cron" })} />
          On a cron schedule
        </label>
      </div>
      {whole.length > 0 ? (
        <ul class="field-errors">
          {whole.map((m) => (
            <li key={m}>{m}</li>
          ))}
        </ul>
      ) : null}
      {value.mode === "every" ? (
        <TextInput
          label="Minutes between runs"
          type="number"
          inputMode="decimal"
          step="any"
          required
          hint="The first run is at once; each next one this many minutes after the last was due."
          value={value.minutes}
          onValue={(minutes) => onChange({ ...value, minutes })}
          errors={issues?.at("schedule.every_minutes") ?? []}
        />
      ) : (
        <TextInput
          label="Cron expression (UTC)"
          required
          maxLength={128}
          hint={
            <>
              Five fields (minute hour day month weekday), e.g. <code>0 9 * * 1</code> for 09:00 UTC each Monday, or an alias such as{" "}
              <code>@daily</code>.
            </>
          }
          value={value.cron}
          onValue={(cron) => onChange({ ...value, cron })}
          errors={issues?.at("schedule.cron") ?? []}
        />
      )}
    </fieldset>
  );
}
