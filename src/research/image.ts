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

/** The image type from the first bytes; BMP only counts for fetched URLs (the base64 form allows four types). */
export function sniffImage(bytes: Uint8Array): ImageMediaType | null {
  const at = (i: number) => bytes[i] ?? -1;
  if (
    at(0) === 0x89 &&
    at(1) === 0x50 &&
    at(2) === 0x4e &&
    at(3) === 0x47 &&
    at(4) === 0x0d &&
    at(5) === 0x0a &&
    at(6) === 0x1a &&
    at(7) === 0x0a
  )
    return "image/png";
  if (at(0) === 0xff && at(1) === 0xd8 && at(2) === 0xff) return "image/jpeg";
  if (at(0) === 0x47 && at(1) === 0x49 && at(2) === 0x46 && at(3) === 0x38 && (at(4) === 0x37 || at(4) === 0x39) && at(5) === 0x61)
    return "image/gif";
  if (
    at(0) === 0x52 &&
    at(1) === 0x49 &&
    at(2) === 0x46 &&
    at(3) === 0x46 &&
    at(8) === 0x57 &&
    at(9) === 0x45 &&
    at(10) === 0x42 &&
    at(11) === 0x50
  )
    return "image/webp";
  if (at(0) === 0x42 && at(1) === 0x4d) return "image/bmp";
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
