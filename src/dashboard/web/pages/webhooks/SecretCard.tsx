/**
 * The account's webhook signing secret: hidden until asked for, copied with
 * one click, and rotated after a confirmation (the previous secret keeps
 * signing for 24 hours, so receivers can switch without a gap).
 */
import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { CopyButton } from "../../components/CopyButton.tsx";
import { ErrorMessage, StatusMessage } from "../../components/ErrorMessage.tsx";
import { useAction } from "../../components/useAction.ts";
import { useLoad } from "../../components/useLoad.ts";
import { formatTime } from "../../format.ts";
import type { WebhookSecret } from "../../model.ts";

/** The prefix stays readable (it says what kind of secret it is); the rest is dots. */
export function maskSecret(secret: string): string {
  const prefix = secret.startsWith("whsec_") ? "whsec_" : "";
  return `${prefix}${"•".repeat(24)}`;
}

export function SecretCard() {
  const loaded = useLoad((signal) => api.get<WebhookSecret>("/v1/webhooks/secret", { signal }), []);
  const [shown, setShown] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const rotation = useAction();
  const secret = loaded.data;

  const rotate = async () => {
    await rotation.run(async () => {
      loaded.set(await api.post<WebhookSecret>("/v1/webhooks/secret/rotate"));
      setShown(false);
      rotation.setStatus("A new signing secret is in use. Give it to your receivers; the previous one keeps signing for 24 hours.");
    });
    setConfirming(false);
  };

  return (
    <section class="card" aria-labelledby="secret-heading">
      <h2 id="secret-heading">Signing secret</h2>
      <p>
        Every webhook is signed with this secret as <a href="https://www.standardwebhooks.com/">Standard Webhooks</a> describe: check the{" "}
        <code>webhook-signature</code> header with it before you trust a message.
      </p>
      <ErrorMessage error={loaded.error ?? rotation.error} />
      {secret ? (
        <>
          <div class="secret-row buttons-below">
            <label for="webhook-secret">Webhook signing secret</label>
            <input
              id="webhook-secret"
              class="mono"
              readOnly
              value={shown ? secret.secret : maskSecret(secret.secret)}
              aria-describedby="webhook-secret-state"
              onFocus={(e) => shown && e.currentTarget.select()}
            />
            <div class="actions">
              <button type="button" class="secondary small" aria-pressed={shown} onClick={() => setShown((s) => !s)}>
                {shown ? "Hide" : "Reveal"}
              </button>
              <CopyButton text={secret.secret} label="Copy secret" />
            </div>
          </div>
          <p class="hint" id="webhook-secret-state">
            {shown ? "The secret is shown." : "The secret is hidden."}{" "}
            {secret.rotated_at ? `Last rotated ${formatTime(secret.rotated_at)}.` : "Never rotated."}
            {secret.previous_secret_expires_at
              ? ` The previous secret also signs until ${formatTime(secret.previous_secret_expires_at)}.`
              : ""}
          </p>
          <button type="button" class="secondary" onClick={() => setConfirming(true)}>
            Rotate secret
          </button>
          <StatusMessage text={rotation.status} />
        </>
      ) : loaded.loading ? (
        <p>Loading the secret…</p>
      ) : null}
      <ConfirmDialog
        open={confirming}
        title="Rotate the signing secret?"
        confirmLabel="Yes, rotate it"
        busy={rotation.busy}
        onConfirm={() => void rotate()}
        onCancel={() => setConfirming(false)}
      >
        <p>
          A new secret signs every webhook from now on. The current one keeps signing too for <strong>24 hours</strong> (each message
          carries both signatures), so your receivers can switch to the new one without missing a message. After that, only the new one
          works.
        </p>
      </ConfirmDialog>
    </section>
  );
}
