/** A form's submit button: disabled while the form's call runs, and saying so. */
import type { ComponentChildren } from "preact";

export function SubmitButton({ busy, busyLabel, children }: { busy: boolean; busyLabel: string; children: ComponentChildren }) {
  return (
    <button type="submit" disabled={busy}>
      {busy ? busyLabel : children}
    </button>
  );
}
