/**
 * The banner: the product name, the navigation between pages, and the
 * account with sign-out, and a way to the API reference the service serves
 * (/docs). Below desktop width the pages fold into a Menu
 * button (a disclosure: aria-expanded, Escape closes it and gives the
 * focus back), so a phone's banner is one row instead of three.
 */
import { useContext, useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api.ts";
import { BASE, Link, navigate } from "../router.tsx";
import { SessionContext } from "../session.ts";

/** Searching now first, then the work that answers later (tasks, the monitors that start them, the webhooks that report them). */
const PAGES = [
  { href: `${BASE}/usage`, label: "Plan and usage" },
  { href: `${BASE}/keys`, label: "API keys" },
  { href: `${BASE}/playground`, label: "Playground" },
  { href: `${BASE}/endpoints`, label: "Endpoints" },
  { href: `${BASE}/marketplace`, label: "Marketplace" },
  { href: `${BASE}/tasks`, label: "Tasks" },
  { href: `${BASE}/monitors`, label: "Monitors" },
  { href: `${BASE}/webhooks`, label: "Webhooks" },
];

export function Header({ path }: { path: string }) {
  const { session, setSession } = useContext(SessionContext);
  const [busy, setBusy] = useState(false);
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const nav = useRef<HTMLElement>(null);

  // A page chosen closes the menu.
  useEffect(() => setOpen(false), [path]);
  // So does a click anywhere else.
  useEffect(() => {
    if (!open) return;
    const away = (event: PointerEvent) => {
      if (!nav.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", away);
    return () => document.removeEventListener("pointerdown", away);
  }, [open]);

  const signOut = async () => {
    setBusy(true);
    try {
      await api.post("/auth/signout", undefined, { quietUnauthorized: true });
    } catch {
      // Signed out either way: an expired session is just as gone.
    }
    setBusy(false);
    setSession(null);
    navigate(`${BASE}/signin`);
  };
  const links = session
    ? PAGES
    : [
        { href: `${BASE}/signin`, label: "Sign in" },
        { href: `${BASE}/signup`, label: "Create account" },
      ];
  return (
    <header class={`banner${session ? " compact" : ""}`}>
      <div class="banner-inner">
        <Link href={session ? `${BASE}/usage` : `${BASE}/signin`} class="brand">
          Search dashboard
        </Link>
        <nav
          aria-label="Main"
          ref={nav}
          onKeyDown={(e) => {
            if (e.key === "Escape" && open) {
              setOpen(false);
              toggle.current?.focus();
            }
          }}
        >
          {session ? (
            <button
              type="button"
              ref={toggle}
              class="secondary small menu-toggle"
              aria-expanded={open}
              aria-controls="main-pages"
              onClick={() => setOpen((o) => !o)}
            >
              Menu
            </button>
          ) : null}
          <ul id="main-pages" class={open ? "open" : undefined}>
            {links.map((page) => {
              const here = path === page.href || path.startsWith(`${page.href}/`);
              return (
                <li key={page.href}>
                  <Link href={page.href} aria-current={here ? "page" : undefined}>
                    {page.label}
                  </Link>
                </li>
              );
            })}
            <li>
              {/* The service's own reference page (/docs, from /openapi.json): a page of the server, not of the dashboard. */}
              <a href="/docs" class="external">
                Docs<span aria-hidden="true"> ↗</span>
                <span class="visually-hidden"> (API reference, leaves the dashboard)</span>
              </a>
            </li>
            {session ? (
              <li class="menu-who" title={session.email}>
                Signed in as {session.email}
              </li>
            ) : null}
          </ul>
        </nav>
        {session ? (
          <div class="who">
            <span class="who-email" title={session.email}>
              {session.email}
            </span>
            <button type="button" class="secondary small" onClick={signOut} disabled={busy}>
              Sign out
            </button>
          </div>
        ) : null}
      </div>
    </header>
  );
}
