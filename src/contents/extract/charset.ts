/**
 * Turns response bytes into text the way a browser would, with one
 * deliberate difference: a declared legacy charset (ISO-8859-1, GBK...) on
 * bytes that are valid, non-ASCII UTF-8 is taken to be a mislabel (a common
 * server or template misconfiguration; real legacy text with non-ASCII
 * characters is practically never valid UTF-8), so the page decodes as
 * UTF-8 instead of as mojibake.
 *
 * Order of evidence: a byte-order mark (it is in the bytes themselves, and
 * browsers let it override the header), the Content-Type charset, a
 * `<meta charset>`/`http-equiv` or XML declaration in the first bytes, then
 * UTF-8, then windows-1252 when the bytes are not valid UTF-8.
 */

/** How far into the body a charset declaration is looked for; browsers scan about this much. */
const PRESCAN_BYTES = 8 * 1024;

export function charsetFromContentType(contentType: string | null): string | null {
  const match = contentType?.match(/;\s*charset\s*=\s*("?)([^";\s]+)\1/i);
  return match?.[2]?.toLowerCase() ?? null;
}

function bomEncoding(body: Uint8Array): string | null {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return "utf-8";
  if (body[0] === 0xfe && body[1] === 0xff) return "utf-16be";
  if (body[0] === 0xff && body[1] === 0xfe) return "utf-16le";
  return null;
}

/** A charset declared inside the document: `<meta charset>`, `<meta http-equiv>` or `<?xml encoding?>`. */
export function declaredCharset(body: Uint8Array): string | null {
  // Latin-1 maps every byte to one code unit, so ASCII markup is readable whatever the real encoding.
  const head = new TextDecoder("latin1").decode(body.subarray(0, PRESCAN_BYTES));
  const xml = head.match(/^\s*<\?xml[^>]*encoding\s*=\s*["']([\w.:-]+)["']/i);
  if (xml?.[1]) return xml[1].toLowerCase();
  // `<meta charset=x>` and `<meta http-equiv=Content-Type content="text/html; charset=x">` alike.
  for (const tag of head.matchAll(/<meta\b[^>]*>/gi)) {
    const label = tag[0].match(/charset\s*=\s*["']?\s*([\w.:-]+)/i)?.[1];
    if (label) return label.toLowerCase();
  }
  return null;
}

/** A decoder for a WHATWG label, or null when the label is unknown. */
function decoderFor(label: string, fatal = false): TextDecoder | null {
  try {
    return new TextDecoder(label as Bun.Encoding, { fatal });
  } catch {
    return null;
  }
}

function isValidUtf8(body: Uint8Array): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(body);
    return true;
  } catch {
    return false;
  }
}

function hasNonAscii(body: Uint8Array): boolean {
  for (let i = 0; i < body.length; i++) if (body[i]! >= 0x80) return true;
  return false;
}

export interface DecodedText {
  text: string;
  /** The encoding actually used, as TextDecoder names it. */
  encoding: string;
}

/**
 * Decodes a body. `sniffMarkup` enables the in-document declarations, which
 * only mean something for HTML and XML.
 */
export function decodeBody(body: Uint8Array, contentType: string | null, sniffMarkup: boolean): DecodedText {
  const bom = bomEncoding(body);
  if (bom) {
    const decoder = decoderFor(bom)!;
    return { text: decoder.decode(body), encoding: decoder.encoding };
  }
  const declared = [charsetFromContentType(contentType), sniffMarkup ? declaredCharset(body) : null];
  for (const label of declared) {
    if (!label) continue;
    // A meta tag cannot honestly declare UTF-16 (the tag itself would not be ASCII); browsers read it as UTF-8.
    const decoder = decoderFor(/^utf-?16/i.test(label) && label === declared[1] ? "utf-8" : label);
    if (!decoder) continue;
    // Legacy-encoded text that contains non-ASCII is practically never valid UTF-8 by accident.
    if (decoder.encoding !== "utf-8" && !decoder.encoding.startsWith("utf-16") && hasNonAscii(body) && isValidUtf8(body)) break;
    return { text: decoder.decode(body), encoding: decoder.encoding };
  }
  if (isValidUtf8(body)) return { text: new TextDecoder("utf-8").decode(body), encoding: "utf-8" };
  return { text: new TextDecoder("windows-1252").decode(body), encoding: "windows-1252" };
}
