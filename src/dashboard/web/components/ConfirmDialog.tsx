/**
 * The confirmation step before something that cannot be undone. A native
 * modal <dialog>: the browser keeps focus inside it, Escape cancels, and
 * focus returns to the button that opened it.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef } from "preact/hooks";

interface ConfirmProps {
  open: boolean;
  title: string;
  confirmLabel: string;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  children: ComponentChildren;
}

export function ConfirmDialog({ open, title, confirmLabel, busy, onConfirm, onCancel, children }: ConfirmProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      class="confirm"
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <div class="confirm-body">{children}</div>
      <div class="actions">
        {/* Cancel comes first so the focus the dialog takes by default is the safe choice. */}
        <button type="button" class="secondary" onClick={onCancel} autofocus>
          Cancel
        </button>
        <button type="button" class="danger" onClick={onConfirm} disabled={busy}>
          {busy ? "Working…" : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
