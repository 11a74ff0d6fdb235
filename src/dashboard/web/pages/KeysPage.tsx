/**
 * API keys: list with each key's expiry, create (optionally expiring; the
 * secret shown once), rotate with a grace period for the old key, revoke
 * after a confirmation.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ConfirmDialog } from "../components/ConfirmDialog.tsx";
import { ErrorMessage, StatusMessage } from "../components/ErrorMessage.tsx";
import { Field, TextInput } from "../components/Field.tsx";
import { PageHeading } from "../components/PageHeading.tsx";
import { SubmitButton } from "../components/SubmitButton.tsx";
import { Table, type Column } from "../components/Table.tsx";
import { useAction } from "../components/useAction.ts";
import { useLoad } from "../components/useLoad.ts";
import { formatTime } from "../format.ts";
import type { ApiKey, CreatedKey, RotatedKey } from "../model.ts";
import { keyLabel, keyState } from "./keys/key-state.ts";
import { NewKeyBox } from "./keys/NewKeyBox.tsx";
import { RotateDialog } from "./keys/RotateDialog.tsx";

const EXPIRY_CHOICES = [
  { days: "", label: "Never" },
  { days: "7", label: "In 7 days" },
  { days: "30", label: "In 30 days" },
  { days: "90", label: "In 90 days" },
  { days: "365", label: "In a year" },
];

const KEY_COLUMNS: Column[] = [
  { label: "Name" },
  { label: "Prefix" },
  { label: "Created" },
  { label: "Last used" },
  { label: "Expires" },
  { label: "Status" },
  { label: "Actions", unseen: true },
];

/** A button in a key's row: it shows only the verb, and its accessible name says which key. */
function KeyButton({ apiKey, verb, kind, onClick }: { apiKey: ApiKey; verb: string; kind: "secondary" | "danger"; onClick: () => void }) {
  return (
    <button type="button" class={`${kind} small`} aria-label={`${verb} key ${keyLabel(apiKey)}`} onClick={onClick}>
      {verb}
    </button>
  );
}

export function KeysPage() {
  const keys = useLoad((signal) => api.get<{ keys: ApiKey[] }>("/v1/keys", { signal }), []);
  const [name, setName] = useState("");
  const [expiresInDays, setExpiresInDays] = useState("");
  const [created, setCreated] = useState<CreatedKey | RotatedKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [rotating, setRotating] = useState<ApiKey | null>(null);
  // Revoking and rotating report on one line below the heading, the last one's news.
  const [status, setStatus] = useState("");
  const creation = useAction();
  const revocation = useAction();
  const rotation = useAction();

  const create = (e: Event) => {
    e.preventDefault();
    void creation.run(async () => {
      const body: Record<string, unknown> = {};
      if (name.trim()) body.name = name.trim();
      if (expiresInDays) body.expires_in_days = Number(expiresInDays);
      const key = await api.post<CreatedKey>("/v1/keys", body);
      setCreated(key);
      setName("");
      setExpiresInDays("");
      // The answer is the new key's row: no second call (each one counts against the per-minute limit).
      const { api_key: _secret, ...row } = key;
      keys.set({ keys: [row, ...(keys.data?.keys ?? [])] });
    });
  };

  const revoke = async () => {
    if (!revoking) return;
    await revocation.run(async () => {
      const revoked = await api.delete<ApiKey>(`/v1/keys/${encodeURIComponent(revoking.id)}`);
      setStatus(`Key ${keyLabel(revoking)} revoked.`);
      keys.set({ keys: (keys.data?.keys ?? []).map((k) => (k.id === revoked.id ? revoked : k)) });
    });
    setRevoking(null);
  };

  const rotate = async (graceSeconds: number) => {
    if (!rotating) return;
    await rotation.run(async () => {
      const rotated = await api.post<RotatedKey>(`/v1/keys/${encodeURIComponent(rotating.id)}/rotate`, { grace_seconds: graceSeconds });
      setCreated(rotated);
      setStatus(`Key ${keyLabel(rotating)} rotated.`);
      // Both rows come back in the answer: the new key, and the old one with its end and successor.
      const { api_key: _secret, rotated_from: previous, ...row } = rotated;
      keys.set({ keys: [row, ...(keys.data?.keys ?? []).map((k) => (k.id === previous.id ? previous : k))] });
    });
    setRotating(null);
  };

  return (
    <section>
      <PageHeading title="API keys" />
      <p class="lead">
        Keys call the API from your code. Send one in the <code>X-API-Key</code> header.
      </p>

      {created ? <NewKeyBox created={created} onDone={() => setCreated(null)} /> : null}

      <form class="card inline-form" onSubmit={create} aria-labelledby="create-key-heading">
        <h2 id="create-key-heading">Create a key</h2>
        <TextInput
          label="Key name"
          hint="Optional: where the key is used, e.g. “production”."
          maxLength={100}
          value={name}
          onValue={setName}
          errors={creation.issues("name")}
        />
        <Field label="Expires" errors={creation.issues("expires_in_days")}>
          {(control) => (
            <select {...control} value={expiresInDays} onChange={(e) => setExpiresInDays(e.currentTarget.value)}>
              {EXPIRY_CHOICES.map((choice) => (
                <option key={choice.days} value={choice.days}>
                  {choice.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <SubmitButton busy={creation.busy} busyLabel="Creating…">
          Create key
        </SubmitButton>
        <ErrorMessage error={creation.error} />
      </form>

      <h2>Your keys</h2>
      <StatusMessage text={status} />
      <ErrorMessage error={keys.error ?? revocation.error ?? rotation.error} />
      {keys.data === null ? (
        keys.loading ? (
          <p>Loading keys…</p>
        ) : null
      ) : keys.data.keys.length === 0 ? (
        <p>No keys yet.</p>
      ) : (
        <Table caption="API keys" captionUnseen responsive columns={KEY_COLUMNS}>
          {keys.data.keys.map((key) => {
            const state = keyState(key);
            return (
              <tr key={key.id} class={state.works ? undefined : "revoked"}>
                <td data-label="Name">{key.name ?? <span class="muted">Unnamed</span>}</td>
                <td data-label="Prefix">
                  <code>{key.prefix}…</code>
                </td>
                <td data-label="Created" class="nowrap">
                  {formatTime(key.created_at)}
                </td>
                <td data-label="Last used" class="nowrap">
                  {formatTime(key.last_used_at)}
                </td>
                <td data-label="Expires" title={key.expires_at ? formatTime(key.expires_at) : undefined}>
                  {state.expires}
                </td>
                <td data-label="Status">{state.status}</td>
                <td data-label="Actions">
                  <div class="actions nowrap">
                    {state.canRotate ? <KeyButton apiKey={key} verb="Rotate" kind="secondary" onClick={() => setRotating(key)} /> : null}
                    {state.canRevoke ? <KeyButton apiKey={key} verb="Revoke" kind="danger" onClick={() => setRevoking(key)} /> : null}
                  </div>
                </td>
              </tr>
            );
          })}
        </Table>
      )}

      <RotateDialog target={rotating} busy={rotation.busy} onConfirm={(grace) => void rotate(grace)} onCancel={() => setRotating(null)} />

      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this key?"
        confirmLabel="Yes, revoke it"
        busy={revocation.busy}
        onConfirm={revoke}
        onCancel={() => setRevoking(null)}
      >
        <p>
          <code>{revoking ? keyLabel(revoking) : ""}</code> stops working at once, for every program that uses it. This cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}
