/**
 * Text and JSON pass through: there is no boilerplate to find in them. JSON
 * is pretty-printed (one line of minified JSON is hard to read and to
 * chunk); its markdown is a fenced block and its HTML a <pre>. Text stays
 * text; markdown sources are already markdown.
 */
import type { ExtractedPage } from "./html-page.ts";
import { linksInText } from "./links.ts";

export const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Plain text is already readable markdown; only line endings and trailing blanks are tidied. */
export function textToMarkdown(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/[ \t]+$/gm, "")
    .trim();
}

function fenceFor(code: string): string {
  let length = 3;
  for (const match of code.matchAll(/`{3,}/g)) length = Math.max(length, match[0].length + 1);
  return "`".repeat(length);
}

const emptyMetadata = { title: null, byline: null, siteName: null, publishedAt: null, language: null };

export function extractPlainText(source: string, mediaType: string): ExtractedPage {
  const text = textToMarkdown(source.replace(/^\ufeff/, ""));
  const isMarkdown = mediaType === "text/markdown" || mediaType === "text/x-markdown";
  // A markdown document's first ATX heading is its title.
  const title = isMarkdown ? (text.match(/^#\s+(.+?)\s*#*\s*$/m)?.[1] ?? null) : null;
  return {
    ...emptyMetadata,
    title,
    text,
    markdown: text,
    html: text ? `<pre>${escapeHtml(text)}</pre>` : "",
    links: linksInText(text),
  };
}

/** Pretty-printed JSON, or null when the body does not parse (the caller passes it through as text). */
export function extractJson(source: string): ExtractedPage | null {
  let pretty: string;
  try {
    pretty = JSON.stringify(JSON.parse(source.replace(/^\ufeff/, "")), null, 2);
  } catch {
    return null;
  }
  const fence = fenceFor(pretty);
  return {
    ...emptyMetadata,
    text: pretty,
    markdown: `${fence}json\n${pretty}\n${fence}`,
    html: `<pre><code class="language-json">${escapeHtml(pretty)}</code></pre>`,
    links: linksInText(pretty),
  };
}
