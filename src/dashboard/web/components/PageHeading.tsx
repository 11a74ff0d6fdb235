/**
 * The page's one h1. It also names the browser tab, and it can take focus:
 * after a client-side navigation the app moves focus here, so keyboard and
 * screen-reader users land at the top of the new page as on a full load.
 */
import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";

export function PageHeading({ title, children }: { title: string; children?: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Search dashboard`;
  }, [title]);
  return (
    <h1 tabIndex={-1} id="page-heading">
      {children ?? title}
    </h1>
  );
}
