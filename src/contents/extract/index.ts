/**
 * Page contents extraction: the main content of a fetched body (HTML, PDF,
 * plain text or JSON) as clean HTML, markdown and text, with metadata.
 *
 * Pure: no network, no storage. The body's real type comes from its bytes as
 * much as from the Content-Type header (media-type.ts); text is decoded with
 * the charset the header, a BOM or the markup declares (charset.ts).
 */
import { decodeBody } from "./charset.ts";
import { detectMediaType } from "./media-type.ts";
import { extractHtmlPage, type ExtractedPage } from "./html-page.ts";
import { extractPdf } from "./pdf.ts";
import { extractJson, extractPlainText } from "./plain.ts";

export interface ExtractedDocument {
  /** The media type that was actually extracted: "text/html", "application/pdf", "text/plain", "application/json" (or another text/* type passed through). */
  contentType: string;
  title: string | null;
  byline: string | null;
  siteName: string | null;
  /** ISO 8601 when a publication date is found in metadata (meta tags, JSON-LD, <time>), else null. */
  publishedAt: string | null;
  /** BCP 47-ish language code from <html lang>, meta, or content-language; null when unknown. */
  language: string | null;
  /** Main content as clean, safe HTML (no scripts, styles, event handlers, iframes). */
  html: string;
  /** Main content as markdown: headings, lists, links (absolute URLs), GFM tables, fenced code blocks. */
  markdown: string;
  /** Main content as plain text, paragraphs separated by blank lines. */
  text: string;
  /** Absolute http(s) URLs of links in the main content, deduplicated, in document order. */
  links: string[];
}

export interface ExtractInput {
  /** The raw (already decompressed) response body. */
  body: Uint8Array;
  /** The Content-Type header value as sent, e.g. "text/html; charset=ISO-8859-1", or null. */
  contentType: string | null;
  /** The final URL (after redirects), to resolve relative links. */
  url: string;
}

/**
 * Throws ServiceError("unsupported_content_type") for bodies that are
 * neither HTML, PDF nor text (images, archives, binary octet-streams).
 */
export async function extractDocument(input: ExtractInput): Promise<ExtractedDocument> {
  const { kind, mediaType } = detectMediaType(input.body, input.contentType);
  if (kind === "pdf") return { contentType: "application/pdf", ...(await extractPdf(input.body)) };
  const { text } = decodeBody(input.body, input.contentType, kind === "html");
  if (kind === "html") return { contentType: "text/html", ...extractHtmlPage(text, input.url) };
  if (kind === "json") {
    const json = extractJson(text);
    if (json) return { contentType: "application/json", ...json };
    return { contentType: "text/plain", ...extractPlainText(text, "text/plain") };
  }
  return { contentType: mediaType, ...extractPlainText(text, mediaType) };
}

export type { ExtractedPage };
