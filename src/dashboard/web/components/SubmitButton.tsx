/**
 * A form's submit button: disabled while the form's call runs, and saying so; after a 429, disabled until the wait
 * is over, saying how long (`wait`, in seconds).
 */
import type { ComponentChildren } from "preact";

interface SubmitButtonProps {
  busy: boolean;
  busyLabel: string;
  wait?: number;
  children: ComponentChildren;
}

export function SubmitButton({ busy, busyLabel, wait = 0, children }: SubmitButtonProps) {
  return (
    <button type="submit" disabled={busy || wait > 0}>
      {busy ? (
        busyLabel
      ) : wait > 0 ? (
        <>
          {children} (in {wait} s)
        </>
      ) : (
        children
      )}
    </button>
  );
}
