/**
 * The `image` of a search: base64 image bytes (raw or a `data:image/...;base64,`
 * URL), checked by their magic bytes, or an https:// URL ending in an image
 * extension, fetched later through the SSRF guard. Anything else is a 422
 * saying which rule failed.
 */
import { invalid } from "../errors.ts";

export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp" | "image/bmp";

export type ImageInput = { kind: "bytes"; mediaType: ImageMediaType; data: Uint8Array } | { kind: "url"; url: URL };

const URL_EXTENSION = /\.(jpe?g|png|gif|webp|bmp)$/i;

/** Whether `bytes` holds `signature` at `offset`. */
const hasAt = (bytes: Uint8Array, offset: number, signature: readonly number[]) => signature.every((byte, i) => bytes[offset + i] === byte);

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const GIF87A = [0x47, 0x49, 0x46, 0x38, 0x37, 0x61];
const GIF89A = [0x47, 0x49, 0x46, 0x38, 0x39, 0x61];
/** WebP is a RIFF container ("RIFF", four bytes of size, then "WEBP"). */
const RIFF = [0x52, 0x49, 0x46, 0x46];
const WEBP = [0x57, 0x45, 0x42, 0x50];
const BMP = [0x42, 0x4d];

/** The image type from the first bytes; BMP only counts for fetched URLs (the base64 form allows four types). */
export function sniffImage(bytes: Uint8Array): ImageMediaType | null {
  if (hasAt(bytes, 0, PNG)) return "image/png";
  if (hasAt(bytes, 0, JPEG)) return "image/jpeg";
  if (hasAt(bytes, 0, GIF87A) || hasAt(bytes, 0, GIF89A)) return "image/gif";
  if (hasAt(bytes, 0, RIFF) && hasAt(bytes, 8, WEBP)) return "image/webp";
  if (hasAt(bytes, 0, BMP)) return "image/bmp";
  return null;
}

function decodeBase64(text: string): Uint8Array | null {
  const compact = text.replace(/\s+/g, "");
  if (!compact || compact.length % 4 === 1 || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(compact)) return null;
  try {
    return Uint8Array.from(atob(compact.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

export function parseImageInput(raw: string, loc: (string | number)[], maxBytes: number): ImageInput {
  const text = raw.trim();
  if (/^https?:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw invalid(loc, "image URL is not a valid URL", "image_url");
    }
    if (url.protocol !== "https:") throw invalid(loc, "image URL must use https://", "image_url");
    if (url.username || url.password) throw invalid(loc, "image URL must not contain credentials", "image_url");
    if (!URL_EXTENSION.test(url.pathname))
      throw invalid(loc, "image URL must end in .jpg, .jpeg, .png, .gif, .webp or .bmp (a query string may follow)", "image_url");
    return { kind: "url", url };
  }
  let payload = text;
  if (/^data:/i.test(text)) {
    const match = /^data:(image\/(?:png|jpeg|jpg|gif|webp));base64,(.*)$/is.exec(text);
    if (!match) throw invalid(loc, "a data: URL image must be data:image/png|jpeg|gif|webp;base64,...", "image_data_url");
    payload = match[2]!;
  }
  // Decoded size is three quarters of the text: refuse before decoding anything huge.
  if (Math.floor((payload.length * 3) / 4) > maxBytes + 3) throw invalid(loc, `image is larger than ${maxBytes} bytes`, "image_too_large");
  const bytes = decodeBase64(payload);
  if (!bytes)
    throw invalid(
      loc,
      "image must be base64 image data, a data:image/...;base64 URL, or an https:// URL ending in an image extension",
      "image_format",
    );
  if (bytes.byteLength > maxBytes) throw invalid(loc, `image is larger than ${maxBytes} bytes`, "image_too_large");
  const mediaType = sniffImage(bytes);
  if (!mediaType || mediaType === "image/bmp") throw invalid(loc, "image bytes are not a PNG, JPEG, GIF or WebP image", "image_type");
  return { kind: "bytes", mediaType, data: bytes };
}
