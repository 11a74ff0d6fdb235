/**
 * Decides what a body really is. Servers mislabel often (HTML error pages
 * served as application/pdf, PDFs as application/octet-stream), so the bytes
 * have the last word over the header; the URL's suffix is never consulted.
 */
import { ServiceError } from "../../errors.ts";

export type DocumentKind = "html" | "pdf" | "text" | "json";

export interface MediaType {
  kind: DocumentKind;
  /** The media type reported to the caller: what was actually extracted. */
  mediaType: string;
}

/** How many leading bytes the sniffers look at. */
const SNIFF_BYTES = 1024;

/** The `type/subtype` of a Content-Type value, lowercased, or "" when absent. */
export function essence(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

function startsWith(body: Uint8Array, signature: number[], offset = 0): boolean {
  return signature.every((byte, i) => body[offset + i] === byte);
}

/** pdf.js, like Acrobat, accepts the `%PDF-` header anywhere in the first kilobyte. */
export function hasPdfMagic(body: Uint8Array): boolean {
  const limit = Math.min(body.length, SNIFF_BYTES) - 5;
  for (let i = 0; i <= limit; i++) {
    if (body[i] === 0x25 && body[i + 1] === 0x50 && body[i + 2] === 0x44 && body[i + 3] === 0x46 && body[i + 4] === 0x2d) return true;
  }
  return false;
}

/** Well-known binary formats, named for the error message. */
const BINARY_SIGNATURES: { name: string; bytes: number[]; offset?: number }[] = [
  { name: "image/png", bytes: [0x89, 0x50, 0x4e, 0x47] },
  { name: "image/jpeg", bytes: [0xff, 0xd8, 0xff] },
  { name: "image/gif", bytes: [0x47, 0x49, 0x46, 0x38] },
  { name: "image/webp", bytes: [0x57, 0x45, 0x42, 0x50], offset: 8 },
  { name: "application/zip", bytes: [0x50, 0x4b, 0x03, 0x04] },
  { name: "application/gzip", bytes: [0x1f, 0x8b] },
  { name: "application/x-7z-compressed", bytes: [0x37, 0x7a, 0xbc, 0xaf] },
  { name: "application/x-rar-compressed", bytes: [0x52, 0x61, 0x72, 0x21] },
  { name: "font/woff", bytes: [0x77, 0x4f, 0x46, 0x46] },
  { name: "application/wasm", bytes: [0x00, 0x61, 0x73, 0x6d] },
  { name: "video/mp4", bytes: [0x66, 0x74, 0x79, 0x70], offset: 4 },
];

function binarySignature(body: Uint8Array): string | null {
  return BINARY_SIGNATURES.find((s) => startsWith(body, s.bytes, s.offset ?? 0))?.name ?? null;
}

/**
 * Text has (almost) no control bytes: a few stray ones happen in real pages,
 * while compressed or binary data has them in about one byte of ten.
 * UTF-16 text has a BOM and is handled by the decoder.
 */
function looksLikeText(body: Uint8Array): boolean {
  const head = body.subarray(0, SNIFF_BYTES * 8);
  if (head[0] === 0xfe && head[1] === 0xff) return true;
  if (head[0] === 0xff && head[1] === 0xfe) return true;
  let control = 0;
  for (const byte of head) if (byte < 0x09 || (byte > 0x0d && byte < 0x20 && byte !== 0x1b)) control++;
  return control <= 2 || control <= head.length * 0.02;
}

/** The WHATWG sniffing table's HTML openers, after whitespace, a BOM or a comment. */
const HTML_START =
  /^(?:\ufeff)?\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body|script|iframe|h1|div|font|table|a|style|title|b|br|p|meta|link|!--)[\s>/]/i;

function looksLikeHtml(body: Uint8Array): boolean {
  const head = new TextDecoder("latin1").decode(body.subarray(0, SNIFF_BYTES));
  return HTML_START.test(head);
}

function looksLikeJson(body: Uint8Array): boolean {
  const head = new TextDecoder("latin1")
    .decode(body.subarray(0, 64))
    .replace(/^\ufeff|^\xef\xbb\xbf/, "")
    .trimStart();
  return head.startsWith("{") || head.startsWith("[");
}

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml", "application/vnd.wap.xhtml+xml"]);
const JSON_TYPE = /^(application\/(?:[\w.+-]+\+)?json|text\/json|application\/json-seq)$/;
/** application/* types that are text in all but name. */
const TEXTUAL_APPLICATION =
  /^application\/(?:(?:[\w.+-]+\+)?xml|javascript|ecmascript|x-javascript|x-yaml|yaml|toml|x-sh|x-httpd-php|sql|graphql|x-tex|rtf|csv|x-ndjson|ld\+json)$/;
/** Labels that promise nothing about the bytes. */
const OPAQUE = new Set([
  "",
  "application/octet-stream",
  "binary/octet-stream",
  "application/unknown",
  "unknown/unknown",
  "application/x-download",
  "application/force-download",
]);

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/;

/** A site's declared type as an error message may repeat it: a well-formed media type, or nothing of the site's text. */
export function shownMediaType(declared: string): string {
  if (declared === "") return "(none)";
  return MEDIA_TYPE.test(declared) ? declared : "(an unrecognised type)";
}

function unsupported(name: string): ServiceError {
  return new ServiceError(
    "unsupported_content_type",
    `cannot extract text from ${name} content; supported: HTML, PDF, plain text and JSON`,
  );
}

/** Classifies a body, or throws `unsupported_content_type` naming what it found. */
export function detectMediaType(body: Uint8Array, contentType: string | null): MediaType {
  const declared = essence(contentType);
  const shown = shownMediaType(declared);
  if (hasPdfMagic(body)) return { kind: "pdf", mediaType: "application/pdf" };
  const binary = binarySignature(body);
  if (binary) throw unsupported(declared && !OPAQUE.has(declared) && declared !== binary ? `${binary} (served as ${shown})` : binary);

  // Binary bytes under a text label (a compressed body passed on undecoded, a mislabelled download) are not text.
  const textual = HTML_TYPES.has(declared) || JSON_TYPE.test(declared) || declared.startsWith("text/");
  if (textual && !looksLikeText(body)) throw unsupported(`binary content (served as ${shown})`);
  if (HTML_TYPES.has(declared)) return { kind: "html", mediaType: "text/html" };
  if (JSON_TYPE.test(declared)) return { kind: "json", mediaType: "application/json" };
  if (declared.startsWith("text/")) return { kind: "text", mediaType: declared };
  if (TEXTUAL_APPLICATION.test(declared) && looksLikeText(body)) return { kind: "text", mediaType: declared };

  // Mislabelled or unlabelled: what do the bytes say? A "PDF" without the magic is usually an HTML error page.
  if (declared === "application/pdf" || OPAQUE.has(declared)) {
    if (body.length === 0) return { kind: "text", mediaType: "text/plain" };
    if (looksLikeHtml(body)) return { kind: "html", mediaType: "text/html" };
    if (looksLikeText(body))
      return looksLikeJson(body) ? { kind: "json", mediaType: "application/json" } : { kind: "text", mediaType: "text/plain" };
    // pdf.js can recover files whose header is late or damaged; it reports its own failure if not.
    if (declared === "application/pdf") return { kind: "pdf", mediaType: "application/pdf" };
    throw unsupported(`binary ${declared ? shown : "untyped"}`);
  }
  throw unsupported(shown);
}
