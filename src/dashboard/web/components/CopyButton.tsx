/**
 * Copies a text and says so in a live region, since the button itself does
 * not change place. The message belongs to the text copied: when the button
 * is given another text (a new key in the same box), it goes at once, so it
 * never vouches for a value the clipboard does not hold.
 */
import { useEffect, useRef, useState } from "preact/hooks";

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
  const [said, setSaid] = useState<{ text: string; message: string } | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const onClick = async () => {
    const ok = await copy(text);
    setSaid({ text, message: ok ? "Copied to the clipboard." : "Could not copy: select the text and copy it by hand." });
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setSaid(null), 4000);
  };
  return (
    <span class="copy">
      <button type="button" class="secondary small" onClick={onClick}>
        {label}
      </button>
      <span role="status" class="copy-status">
        {said?.text === text ? said.message : ""}
      </span>
    </span>
  );
}
