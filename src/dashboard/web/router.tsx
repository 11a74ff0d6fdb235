/**
 * Client-side routing with the History API. The server answers every
 * /dashboard/... path with the app, so a URL is a page's stable address.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";

export const BASE = "/dashboard";

export interface Place {
  path: string;
  search: URLSearchParams;
}

const listeners = new Set<() => void>();

function current(): Place {
  return { path: location.pathname.replace(/\/+$/, "") || "/", search: new URLSearchParams(location.search) };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return;
  if (options.replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  for (const listener of listeners) listener();
}

addEventListener("popstate", () => {
  for (const listener of listeners) listener();
});

export function usePlace(): Place {
  const [place, setPlace] = useState(current);
  useEffect(() => {
    const update = () => setPlace(current());
    listeners.add(update);
    return () => listeners.delete(update);
  }, []);
  return place;
}

/**
 * Matches "/dashboard/endpoints/:id" against a path; the parameters come back
 * decoded, or null when the pattern does not match.
 */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/");
  const got = path.split("/");
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    if (w.startsWith(":")) {
      if (!g) return null;
      try {
        params[w.slice(1)] = decodeURIComponent(g);
      } catch {
        return null;
      }
    } else if (w !== g) return null;
  }
  return params;
}

interface AnchorProps {
  href: string;
  children: ComponentChildren;
  class?: string;
  "aria-current"?: "page";
  "aria-label"?: string;
}

/** An ordinary link (middle-click, copy address and new tab keep working) that navigates in place. */
export function Link({ href, children, ...rest }: AnchorProps) {
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a {...rest} href={href} onClick={onClick}>
      {children}
    </a>
  );
}

/** Redirects on render, replacing the history entry so Back does not bounce. */
export function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}
