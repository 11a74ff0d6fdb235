/** Deleting a monitor, after a confirmation: it runs no more; its past runs stay readable as tasks. */
import { api } from "../../api.ts";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { ErrorMessage } from "../../components/ErrorMessage.tsx";
import { useAction } from "../../components/useAction.ts";
import type { Monitor } from "../../model.ts";
import { askedOf } from "./monitor-facts.ts";

interface Props {
  /** The monitor to delete; null keeps the dialog closed. */
  monitor: Monitor | null;
  onCancel: () => void;
  onDeleted: (monitor: Monitor) => void;
}

export function DeleteMonitorDialog({ monitor, onCancel, onDeleted }: Props) {
  const deletion = useAction();
  const confirm = async () => {
    if (!monitor) return;
    if (
      await deletion.run(async () => {
        await api.delete(`/v1/monitors/${encodeURIComponent(monitor.id)}`);
      })
    )
      onDeleted(monitor);
  };
  return (
    <ConfirmDialog
      open={monitor !== null}
      title="Delete this monitor?"
      confirmLabel="Yes, delete it"
      busy={deletion.busy}
      onConfirm={() => void confirm()}
      onCancel={onCancel}
    >
      {monitor ? (
        <>
          <p>
            <q class="wrap-anywhere">{askedOf(monitor)}</q> will not be asked again, and its webhook hears no more. Its past runs stay
            readable as tasks. This cannot be undone.
          </p>
          <ErrorMessage error={deletion.error} />
        </>
      ) : null}
    </ConfirmDialog>
  );
}
