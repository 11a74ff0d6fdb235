/**
 * The outbound links of the main content: absolute http(s) addresses, in
 * document order, each once. Fragments are dropped before comparing, since
 * "page#a" and "page#b" are the same page to anyone following the links.
 */
import { type DomElement } from "./dom.ts";

export function collectLinks(root: DomElement): string[] {
  const seen = new Set<string>();
  for (const anchor of Array.from(root.getElementsByTagName("a"))) {
    const href = anchor.getAttribute("href");
    if (!href || !/^https?:\/\//i.test(href)) continue;
    try {
      const url = new URL(href);
      url.hash = "";
      seen.add(url.href);
    } catch {
      // Addresses were resolved earlier; one that still does not parse is skipped.
    }
  }
  return [...seen];
}

/** http(s) addresses written out in plain text (text, JSON and PDF bodies have no anchors). */
export function linksInText(text: string): string[] {
  const seen = new Set<string>();
  for (const match of text.matchAll(/\bhttps?:\/\/[^\s<>"'`{}|\\^\[\]]+/gi)) {
    const candidate = match[0].replace(/[.,;:!?)]+$/, "");
    try {
      const url = new URL(candidate);
      url.hash = "";
      seen.add(url.href);
    } catch {
      // Not a URL after all.
    }
  }
  return [...seen];
}
