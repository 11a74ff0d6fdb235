/** The banner: the product name, the navigation between pages, and the account with sign-out. */
import { useContext, useState } from "preact/hooks";
import { api } from "../api.ts";
import { BASE, Link, navigate } from "../router.tsx";
import { SessionContext } from "../session.ts";

const PAGES = [
  { href: `${BASE}/usage`, label: "Plan and usage" },
  { href: `${BASE}/keys`, label: "API keys" },
  { href: `${BASE}/playground`, label: "Playground" },
  { href: `${BASE}/tasks`, label: "Tasks" },
  { href: `${BASE}/endpoints`, label: "Endpoints" },
  { href: `${BASE}/marketplace`, label: "Marketplace" },
  { href: `${BASE}/webhooks`, label: "Webhooks" },
];

export function Header({ path }: { path: string }) {
  const { session, setSession } = useContext(SessionContext);
  const [busy, setBusy] = useState(false);
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
    <header class="banner">
      <div class="banner-inner">
        <Link href={session ? `${BASE}/usage` : `${BASE}/signin`} class="brand">
          Search dashboard
        </Link>
        <nav aria-label="Main">
          <ul>
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
