/**
 * The first minute: an account that has made no API call yet is shown four
 * steps to its first one (a key, a curl line for this server, running it,
 * seeing it in usage), each checked off once it is true. It costs two reads
 * (the keys, the usage totals) when the page opens, and two again when the
 * reader comes back to the tab (from the terminal, most likely), at most
 * every few seconds; once dismissed it costs none (the choice is kept in
 * this browser).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api.ts";
import type { ApiKey, Usage } from "../model.ts";
import { BASE, Link } from "../router.tsx";
import { CopyButton } from "./CopyButton.tsx";
import { curlCommand } from "./shell.ts";
import { useLoad } from "./useLoad.ts";

const DISMISSED = "dashboard.get-started.dismissed";
/** Set once the card has been shown: it stays, its steps ticked, until dismissed, though the account has made calls since. */
const SHOWN = "dashboard.get-started.shown";
/** Coming back to the tab looks again, but not more often than this: the session's calls are counted per minute. */
const RECHECK_MS = 5_000;

function remembered(name: string): boolean {
  try {
    return localStorage.getItem(name) === "1";
  } catch {
    return false;
  }
}

function remember(name: string): void {
  try {
    localStorage.setItem(name, "1");
  } catch {
    // Private browsing may refuse storage: the card then forgets after this visit.
  }
}

export function GetStarted() {
  const [dismissed, setDismissed] = useState(() => remembered(DISMISSED));
  if (dismissed) return null;
  return (
    <GetStartedCard
      onDismiss={() => {
        remember(DISMISSED);
        setDismissed(true);
      }}
    />
  );
}

interface Progress {
  hasKey: boolean;
  hasCall: boolean;
}

function usable(key: ApiKey, now: number): boolean {
  return key.revoked_at === null && (key.expires_at === null || Date.parse(key.expires_at) > now);
}

function GetStartedCard({ onDismiss }: { onDismiss: () => void }) {
  const progress = useLoad(async (signal): Promise<Progress> => {
    const [keys, usage] = await Promise.all([
      api.get<{ keys: ApiKey[] }>("/v1/keys", { signal }),
      // The latest calls are of any time, whatever the window: one day's window keeps the report's sums and percentiles small.
      api.get<Usage>("/v1/usage?days=1", { signal }),
    ]);
    // A call made with a key: the playground's searches are usage too, but they are not the first minute's call.
    return { hasKey: keys.keys.some((k) => usable(k, Date.now())), hasCall: usage.recent.some((call) => call.auth === "key") };
  }, []);
  // Whether to show it at all, from the first look: not to an account that had made calls before the card was ever shown.
  const [show, setShow] = useState<boolean | null>(null);
  const lastLook = useRef(0);
  const { data, reload } = progress;

  useEffect(() => {
    if (!data) return;
    lastLook.current = Date.now();
    if (show !== null) return;
    const fresh = !data.hasCall || remembered(SHOWN);
    if (fresh) remember(SHOWN);
    setShow(fresh);
  }, [data, show]);

  useEffect(() => {
    const back = () => {
      if (document.visibilityState !== "visible" || Date.now() - lastLook.current < RECHECK_MS) return;
      lastLook.current = Date.now();
      reload();
    };
    document.addEventListener("visibilitychange", back);
    window.addEventListener("focus", back);
    return () => {
      document.removeEventListener("visibilitychange", back);
      window.removeEventListener("focus", back);
    };
  }, [reload]);

  if (!data || !show) return null;

  const curl = curlCommand(`${window.location.origin}/v1/search`, { prompt: "When was the Eiffel Tower completed?" });
  const steps = [
    {
      done: data.hasKey,
      title: "Create an API key",
      body: (
        <p>
          <Link href={`${BASE}/keys`}>Create a key</Link> (on the keys page); it is shown once, so copy it then.
        </p>
      ),
    },
    {
      done: data.hasCall,
      title: "Copy a first call",
      body: (
        <>
          <p>
            Put your key in <code>CRITIQUE_API_KEY</code> (<code>export CRITIQUE_API_KEY=sk_…</code>), then copy this call of this server:
          </p>
          <pre class="code" tabIndex={0} aria-label="A first call with curl">
            {curl}
          </pre>
          <CopyButton text={curl} label="Copy the curl command" />
        </>
      ),
    },
    { done: data.hasCall, title: "Run it in a terminal", body: null },
    { done: data.hasCall, title: "See it in your usage", body: null },
  ];
  const done = steps.filter((s) => s.done).length;
  // Only the step to take now says how: the card stays short (a phone's first screen is mostly the plan).
  const current = steps.findIndex((s) => !s.done);

  return (
    <section class="card get-started" aria-labelledby="get-started-heading">
      <div class="section-head">
        <h2 id="get-started-heading">Get started</h2>
        <button type="button" class="secondary small" onClick={onDismiss}>
          Dismiss
        </button>
      </div>
      <p class="muted">
        {done === steps.length
          ? "All done: your first call is counted on this page."
          : `${done} of ${steps.length} steps done. Run the call, then come back to this tab: the steps tick themselves off.`}
      </p>
      <ol class="steps">
        {steps.map((step, i) => (
          <li key={step.title} class={step.done ? "done" : undefined} aria-current={i === current ? "step" : undefined}>
            <h3>
              {step.title} <span class={`badge ${step.done ? "badge-live" : "badge-released"}`}>{step.done ? "Done" : "To do"}</span>
            </h3>
            {i === current ? step.body : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
