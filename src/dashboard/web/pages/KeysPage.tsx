/**
 * API keys: list with each key's expiry, create (optionally expiring; the
 * secret shown once), rotate with a grace period for the old key, revoke
 * after a confirmation.
 */
import { useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { ConfirmDialog } from "../components/ConfirmDialog.tsx";
import { ErrorMessage, StatusMessage } from "../components/ErrorMessage.tsx";
import { Field, TextInput } from "../components/Field.tsx";
import { PageHeading } from "../components/PageHeading.tsx";
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

export function KeysPage() {
  const keys = useLoad((signal) => api.get<{ keys: ApiKey[] }>("/v1/keys", { signal }), []);
  const [name, setName] = useState("");
  const [expiresInDays, setExpiresInDays] = useState("");
  const [created, setCreated] = useState<CreatedKey | RotatedKey | null>(null);
  const [createError, setCreateError] = useState<unknown>(null);
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [revokeBusy, setRevokeBusy] = useState(false);
  const [revokeError, setRevokeError] = useState<unknown>(null);
  const [rotating, setRotating] = useState<ApiKey | null>(null);
  const [rotateBusy, setRotateBusy] = useState(false);
  const [rotateError, setRotateError] = useState<unknown>(null);
  const [status, setStatus] = useState("");

  const create = async (e: Event) => {
    e.preventDefault();
    setCreating(true);
    setCreateError(null);
    try {
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
    } catch (error) {
      setCreateError(error);
    }
    setCreating(false);
  };

  const revoke = async () => {
    if (!revoking) return;
    setRevokeBusy(true);
    setRevokeError(null);
    try {
      const revoked = await api.delete<ApiKey>(`/v1/keys/${encodeURIComponent(revoking.id)}`);
      setStatus(`Key ${keyLabel(revoking)} revoked.`);
      keys.set({ keys: (keys.data?.keys ?? []).map((k) => (k.id === revoked.id ? revoked : k)) });
    } catch (error) {
      setRevokeError(error);
    }
    setRevokeBusy(false);
    setRevoking(null);
  };

  const rotate = async (graceSeconds: number) => {
    if (!rotating) return;
    setRotateBusy(true);
    setRotateError(null);
    try {
      const rotated = await api.post<RotatedKey>(`/v1/keys/${encodeURIComponent(rotating.id)}/rotate`, { grace_seconds: graceSeconds });
      setCreated(rotated);
      setStatus(`Key ${keyLabel(rotating)} rotated.`);
      // Both rows come back in the answer: the new key, and the old one with its end and successor.
      const { api_key: _secret, rotated_from: previous, ...row } = rotated;
      keys.set({ keys: [row, ...(keys.data?.keys ?? []).map((k) => (k.id === previous.id ? previous : k))] });
    } catch (error) {
      setRotateError(error);
    }
    setRotateBusy(false);
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
          errors={createError instanceof ApiError ? createError.at("name") : []}
        />
        <Field label="Expires" errors={createError instanceof ApiError ? createError.at("expires_in_days") : []}>
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
        <button type="submit" disabled={creating}>
          {creating ? "Creating…" : "Create key"}
        </button>
        <ErrorMessage error={createError} />
      </form>

      <h2>Your keys</h2>
      <StatusMessage text={status} />
      <ErrorMessage error={keys.error ?? revokeError ?? rotateError} />
      {keys.data === null ? (
        keys.loading ? (
          <p>Loading keys…</p>
        ) : null
      ) : keys.data.keys.length === 0 ? (
        <p>No keys yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="responsive">
            <caption class="visually-hidden">API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.keys.map((key) => {
                const state = keyState(key);
                return (
                  <tr key={key.id} class={state.works ? undefined : "revoked"}>
                    <td data-label="Name">{key.name ?? <span class="muted">Unnamed</span>}</td>
                    <td data-label="Prefix">
                      <code>{key.prefix}…</code>
                    </td>
                    <td data-label="Created">{formatTime(key.created_at)}</td>
                    <td data-label="Last used">{formatTime(key.last_used_at)}</td>
                    <td data-label="Expires" title={key.expires_at ? formatTime(key.expires_at) : undefined}>
                      {state.expires}
                    </td>
                    <td data-label="Status">{state.status}</td>
                    <td data-label="Actions">
                      <div class="actions">
                        {state.canRotate ? (
                          <button
                            type="button"
                            class="secondary small"
                            aria-label={`Rotate key ${keyLabel(key)}`}
                            onClick={() => setRotating(key)}
                          >
                            Rotate
                          </button>
                        ) : null}
                        {state.canRevoke ? (
                          <button
                            type="button"
                            class="danger small"
                            aria-label={`Revoke key ${keyLabel(key)}`}
                            onClick={() => setRevoking(key)}
                          >
                            Revoke
                          </button>
                        ) : null}
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}

      <RotateDialog target={rotating} busy={rotateBusy} onConfirm={(grace) => void rotate(grace)} onCancel={() => setRotating(null)} />

      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this key?"
        confirmLabel="Yes, revoke it"
        busy={revokeBusy}
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
