/**
 * Link and image addresses made absolute against the page's base (the final
 * URL, or its <base href>), and lazy-loaded images given their real source.
 * Done before extraction so every output (HTML, markdown, links) agrees, and
 * so unsafe schemes never reach the output.
 */
import type { DomDocument, DomElement } from "./dom.ts";

const SAFE_LINK_SCHEMES = new Set(["http:", "https:", "mailto:", "tel:", "ftp:"]);

/** The document's base URL: <base href> resolved against the page URL, when it is http(s). */
export function baseUrlOf(document: DomDocument, pageUrl: string): URL | null {
  let page: URL | null = null;
  try {
    page = new URL(pageUrl);
  } catch {
    page = null;
  }
  const href = document.querySelector("base[href]")?.getAttribute("href");
  if (href) {
    try {
      const base = new URL(href.trim(), page ?? undefined);
      if (base.protocol === "http:" || base.protocol === "https:") return base;
    } catch {
      // An unusable <base> is ignored, as browsers do.
    }
  }
  return page;
}

/** An absolute URL with a safe scheme, or null. Fragment-only links stay as they are. */
export function resolveUrl(raw: string | null | undefined, base: URL | null): string | null {
  const value = raw?.trim().replace(/[\t\n\r]/g, "");
  if (!value) return null;
  if (value.startsWith("#")) return value;
  try {
    const url = new URL(value, base ?? undefined);
    return SAFE_LINK_SCHEMES.has(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

/** Attributes lazy loaders put the real image address in, most specific first. */
const LAZY_SOURCES = [
  "data-src",
  "data-lazy-src",
  "data-original",
  "data-lazy",
  "data-url",
  "data-hi-res-src",
  "data-full-src",
  "data-orig-file",
  "data-large-file",
  "data-srcset",
  "data-lazy-srcset",
];

/** A placeholder src: a data: URI (tiny GIF/SVG), or a blank/spacer/loading image. */
const PLACEHOLDER = /^data:|blank\.|spacer\.|pixel\.|placeholder|transparent\.|loading\.|lazy[-_]?load/i;

/** The first URL of a srcset, which is enough for a text extraction. */
const firstSrcsetUrl = (srcset: string): string | null => srcset.trim().split(/\s+/)[0]?.replace(/,$/, "") || null;

function realImageSource(image: DomElement): string | null {
  const src = image.getAttribute("src");
  if (src && !PLACEHOLDER.test(src)) return src;
  for (const attribute of LAZY_SOURCES) {
    const value = image.getAttribute(attribute);
    if (value) return attribute.endsWith("srcset") ? firstSrcsetUrl(value) : value;
  }
  const srcset = image.getAttribute("srcset");
  return srcset ? firstSrcsetUrl(srcset) : null;
}

/** Rewrites links and images under `root` in place. */
export function resolveUrls(root: DomElement, base: URL | null): void {
  for (const anchor of Array.from(root.getElementsByTagName("a"))) {
    const href = anchor.getAttribute("href");
    if (href === null) continue;
    const resolved = resolveUrl(href, base);
    if (resolved) anchor.setAttribute("href", resolved);
    else anchor.removeAttribute("href");
  }
  for (const image of Array.from(root.getElementsByTagName("img"))) {
    const resolved = resolveUrl(realImageSource(image), base);
    if (resolved && /^https?:/.test(resolved)) image.setAttribute("src", resolved);
    else image.removeAttribute("src");
    image.removeAttribute("srcset");
  }
}
