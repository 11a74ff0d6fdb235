/** API keys: list, create (the secret shown once), revoke after a confirmation. */
import { useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { ConfirmDialog } from "../components/ConfirmDialog.tsx";
import { CopyButton } from "../components/CopyButton.tsx";
import { ErrorMessage, StatusMessage } from "../components/ErrorMessage.tsx";
import { TextInput } from "../components/Field.tsx";
import { PageHeading } from "../components/PageHeading.tsx";
import { useLoad } from "../components/useLoad.ts";
import { formatTime } from "../format.ts";
import type { ApiKey } from "../model.ts";

type CreatedKey = ApiKey & { api_key: string };

function NewKeyBox({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  return (
    <section class="card secret" aria-labelledby="new-key-heading">
      <h2 id="new-key-heading">Your new key{created.name ? `: ${created.name}` : ""}</h2>
      <p class="warning">
        <strong>Copy this key now.</strong> It will not be shown again: only its prefix is kept.
      </p>
      <div class="secret-row">
        <label for="new-key-value">New API key</label>
        <input id="new-key-value" class="mono" readOnly value={created.api_key} onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={created.api_key} label="Copy key" />
      </div>
      <button type="button" class="secondary" onClick={onDone}>
        I have stored the key
      </button>
    </section>
  );
}

function keyLabel(key: ApiKey): string {
  return key.name ? `${key.name} (${key.prefix}…)` : `${key.prefix}…`;
}

export function KeysPage() {
  const keys = useLoad((signal) => api.get<{ keys: ApiKey[] }>("/v1/keys", { signal }), []);
  const [name, setName] = useState("");
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [createError, setCreateError] = useState<unknown>(null);
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [revokeBusy, setRevokeBusy] = useState(false);
  const [revokeError, setRevokeError] = useState<unknown>(null);
  const [status, setStatus] = useState("");

  const create = async (e: Event) => {
    e.preventDefault();
    setCreating(true);
    setCreateError(null);
    try {
      const key = await api.post<CreatedKey>("/v1/keys", name.trim() ? { name: name.trim() } : {});
      setCreated(key);
      setName("");
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
        <button type="submit" disabled={creating}>
          {creating ? "Creating…" : "Create key"}
        </button>
        <ErrorMessage error={createError} />
      </form>

      <h2>Your keys</h2>
      <StatusMessage text={status} />
      <ErrorMessage error={keys.error ?? revokeError} />
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
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.keys.map((key) => (
                <tr key={key.id} class={key.revoked_at ? "revoked" : undefined}>
                  <td data-label="Name">{key.name ?? <span class="muted">Unnamed</span>}</td>
                  <td data-label="Prefix">
                    <code>{key.prefix}…</code>
                  </td>
                  <td data-label="Created">{formatTime(key.created_at)}</td>
                  <td data-label="Last used">{formatTime(key.last_used_at)}</td>
                  <td data-label="Status">{key.revoked_at ? `Revoked ${formatTime(key.revoked_at)}` : "Active"}</td>
                  <td data-label="Actions">
                    {key.revoked_at ? null : (
                      <button
                        type="button"
                        class="danger small"
                        aria-label={`Revoke key ${keyLabel(key)}`}
                        onClick={() => setRevoking(key)}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

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
