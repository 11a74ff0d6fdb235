/**
 * The integration snippets as tabs (the ARIA tabs pattern: arrow keys move
 * between tabs, Tab goes into the panel), each with its copy button.
 */
import { useId, useRef, useState } from "preact/hooks";
import { BASE, Link } from "../router.tsx";
import { CopyButton } from "./CopyButton.tsx";

const ALL = [
  { key: "curl", label: "curl" },
  { key: "python", label: "Python" },
  { key: "javascript", label: "JavaScript" },
  { key: "openai", label: "OpenAI SDK" },
  { key: "ai_sdk", label: "Vercel AI SDK" },
] as const;

type Snippets = { curl: string; python: string; javascript: string; openai?: string; ai_sdk?: string };

export function CodeSnippets({ code }: { code: Snippets }) {
  const LANGUAGES = ALL.filter((lang) => code[lang.key] !== undefined);
  const [active, setActive] = useState(0);
  const id = useId();
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);
  const onKeyDown = (event: KeyboardEvent) => {
    const moves: Record<string, number> = { ArrowRight: active + 1, ArrowLeft: active - 1, Home: 0, End: LANGUAGES.length - 1 };
    const target = moves[event.key];
    if (target === undefined) return;
    event.preventDefault();
    const next = (target + LANGUAGES.length) % LANGUAGES.length;
    setActive(next);
    tabs.current[next]?.focus();
  };
  const language = LANGUAGES[active]!;
  return (
    <div class="snippets">
      <div role="tablist" aria-label="Code samples" class="tabs" onKeyDown={onKeyDown}>
        {LANGUAGES.map((lang, i) => (
          <button
            key={lang.key}
            ref={(el) => {
              tabs.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`${id}-tab-${lang.key}`}
            aria-selected={i === active}
            aria-controls={`${id}-panel`}
            tabIndex={i === active ? 0 : -1}
            onClick={() => setActive(i)}
          >
            {lang.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-tab-${language.key}`} class="tab-panel">
        <CopyButton text={code[language.key] ?? ""} label={`Copy ${language.label} snippet`} />
        <pre class="code" tabIndex={0}>
          {code[language.key]}
        </pre>
      </div>
      <p class="hint">
        The samples read your key from CRITIQUE_API_KEY: set it to one of <Link href={`${BASE}/keys`}>your keys</Link> first.
      </p>
    </div>
  );
}
