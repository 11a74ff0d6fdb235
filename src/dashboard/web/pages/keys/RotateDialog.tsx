/** Rotation's confirmation: how long the old key keeps working while programs move to the new one. */
import { useEffect, useState } from "preact/hooks";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { Field } from "../../components/Field.tsx";
import type { ApiKey } from "../../model.ts";
import { keyLabel } from "./key-state.ts";

export const GRACE_CHOICES = [
  { seconds: 0, label: "Stop it at once" },
  { seconds: 3_600, label: "For 1 hour" },
  { seconds: 86_400, label: "For 24 hours" },
  { seconds: 7 * 86_400, label: "For 7 days" },
];
const DEFAULT_GRACE = 86_400;

interface RotateProps {
  target: ApiKey | null;
  busy: boolean;
  onConfirm: (graceSeconds: number) => void;
  onCancel: () => void;
}

export function RotateDialog({ target, busy, onConfirm, onCancel }: RotateProps) {
  const [grace, setGrace] = useState(String(DEFAULT_GRACE));
  // Each rotation starts from the default, not from the last choice.
  useEffect(() => {
    if (target) setGrace(String(DEFAULT_GRACE));
  }, [target]);
  return (
    <ConfirmDialog
      open={target !== null}
      title="Rotate this key?"
      confirmLabel="Rotate key"
      busy={busy}
      onConfirm={() => onConfirm(Number(grace))}
      onCancel={onCancel}
    >
      <p>
        A new key with the same name replaces <code>{target ? keyLabel(target) : ""}</code>. The new key is shown once.
      </p>
      <Field label="The old key keeps working" hint="Time for your programs to switch to the new key.">
        {(control) => (
          <select {...control} value={grace} onChange={(e) => setGrace(e.currentTarget.value)}>
            {GRACE_CHOICES.map((choice) => (
              <option key={choice.seconds} value={String(choice.seconds)}>
                {choice.label}
              </option>
            ))}
          </select>
        )}
      </Field>
    </ConfirmDialog>
  );
}
