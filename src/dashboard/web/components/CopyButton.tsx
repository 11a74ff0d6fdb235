/** Copies a text and says so in a live region, since the button itself does not change place. */
import { useState } from "preact/hooks";

async function copy(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // The Clipboard API needs a secure context (https or localhost); plain http elsewhere falls back.
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "offscreen";
    document.body.append(area);
    area.select();
    const done = document.execCommand("copy");
    area.remove();
    return done;
  }
}

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [said, setSaid] = useState("");
  const onClick = async () => {
    const ok = await copy(text);
    setSaid(ok ? "Copied to the clipboard." : "Could not copy: select the text and copy it by hand.");
    setTimeout(() => setSaid(""), 4000);
  };
  return (
    <span class="copy">
      <button type="button" class="secondary small" onClick={onClick}>
        {label}
      </button>
      <span role="status" class="copy-status">
        {said}
      </span>
    </span>
  );
}
