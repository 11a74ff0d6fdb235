/** A key just created or rotated: its secret, shown this once, with a way to copy it. */
import { CopyButton } from "../../components/CopyButton.tsx";
import { formatTime } from "../../format.ts";
import type { CreatedKey, RotatedKey } from "../../model.ts";

function replacedLine(created: RotatedKey) {
  const until = created.rotated_from.expires_at;
  return (
    <p>
      It replaces <code>{created.rotated_from.prefix}…</code>, which{" "}
      {until && Date.parse(until) > Date.now() ? `keeps working until ${formatTime(until)}` : "has stopped working"}. Move your programs to
      the new key before then.
    </p>
  );
}

export function NewKeyBox({ created, onDone }: { created: CreatedKey | RotatedKey; onDone: () => void }) {
  return (
    <section class="card secret" aria-labelledby="new-key-heading">
      <h2 id="new-key-heading">Your new key{created.name ? `: ${created.name}` : ""}</h2>
      <p class="warning">
        <strong>Copy this key now.</strong> It will not be shown again: only its prefix is kept.
      </p>
      {"rotated_from" in created ? replacedLine(created) : null}
      {created.expires_at ? <p>It expires {formatTime(created.expires_at)}.</p> : null}
      <div class="secret-row">
        <label for="new-key-value">New API key</label>
        {/* A text area, not an input: on a phone the key wraps and shows whole, instead of its first characters. */}
        <textarea
          id="new-key-value"
          class="mono secret-value"
          rows={1}
          readOnly
          spellcheck={false}
          value={created.api_key}
          onFocus={(e) => e.currentTarget.select()}
        />
        <CopyButton text={created.api_key} label="Copy key" />
      </div>
      <button type="button" class="secondary" onClick={onDone}>
        I have stored the key
      </button>
    </section>
  );
}
