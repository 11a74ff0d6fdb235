/**
 * The outbound links of the main content: absolute http(s) addresses, in
 * document order, each once. Fragments are dropped before comparing, since
 * "page#a" and "page#b" are the same page to anyone following the links.
 */
import type { DomElement } from "./dom.ts";

/** Adds an address without its fragment; one that does not parse is skipped. */
function addLink(seen: Set<string>, address: string): void {
  try {
    const url = new URL(address);
    url.hash = "";
    seen.add(url.href);
  } catch {
    // Not a usable address.
  }
}

export function collectLinks(root: DomElement): string[] {
  const seen = new Set<string>();
  for (const anchor of Array.from(root.getElementsByTagName("a"))) {
    const href = anchor.getAttribute("href");
    if (href && /^https?:\/\//i.test(href)) addLink(seen, href);
  }
  return [...seen];
}

/** http(s) addresses written out in plain text (text, JSON and PDF bodies have no anchors). */
export function linksInText(text: string): string[] {
  const seen = new Set<string>();
  for (const match of text.matchAll(/\bhttps?:\/\/[^\s<>"'`{}|\\^[\]]+/gi)) {
    addLink(seen, match[0].replace(/[.,;:!?)]+$/, ""));
  }
  return [...seen];
}
