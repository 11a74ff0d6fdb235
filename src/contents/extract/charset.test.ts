import { describe, expect, test } from "bun:test";
import { decodeBody } from "./charset.ts";
import { extractDocument } from "./index.ts";

/** windows-1252 bytes for a string whose characters all exist in windows-1252. */
function windows1252(text: string): Uint8Array {
  const special: Record<string, number> = { "€": 0x80, "’": 0x92, "“": 0x93, "”": 0x94, "–": 0x96, "—": 0x97 };
  return new Uint8Array([...text].map((c) => special[c] ?? c.charCodeAt(0)));
}

/** "日本語のテキスト" in Shift_JIS. */
const SHIFT_JIS_JAPANESE = new Uint8Array([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea, 0x82, 0xcc, 0x83, 0x65, 0x83, 0x4c, 0x83, 0x58, 0x83, 0x67]);
const ascii = (text: string) => new TextEncoder().encode(text);
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

const PADDING = "<p>" + "Plain words that make the page long enough to count as an article for the extractors. ".repeat(4) + "</p>";

describe("the charset comes from the header, a BOM or the markup", () => {
  test("a windows-1252 body with only a <meta charset> decodes correctly", async () => {
    const html = `<html><head><meta charset="windows-1252"><title>Caf\u00e9 cr\u00e8me – €5</title></head><body><article><h1>Caf\u00e9</h1><p>Der M\u00e4rz war s\u00fc\u00df, \u201cna\u00efve\u201d r\u00e9sum\u00e9.</p>${PADDING}${PADDING}</article></body></html>`;
    const doc = await extractDocument({ body: windows1252(html), contentType: "text/html", url: "https://example.de/" });
    expect(doc.title).toBe("Caf\u00e9 cr\u00e8me – €5");
    expect(doc.text).toContain("Der M\u00e4rz war s\u00fc\u00df, \u201cna\u00efve\u201d r\u00e9sum\u00e9.");
  });

  test("a Shift_JIS body with the header charset decodes correctly", async () => {
    const body = concat(
      ascii("<html><head><title>"),
      SHIFT_JIS_JAPANESE,
      ascii(`</title></head><body><article><p>`),
      SHIFT_JIS_JAPANESE,
      ascii(`</p>${PADDING}${PADDING}</article></body></html>`),
    );
    const doc = await extractDocument({ body, contentType: "text/html; charset=Shift_JIS", url: "https://example.jp/" });
    expect(doc.title).toBe("日本語のテキスト");
    expect(doc.text).toContain("日本語のテキスト");
  });

  test("the http-equiv form and a quoted header charset are understood", () => {
    const meta = windows1252('<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><p>\u00e9t\u00e9</p>');
    expect(decodeBody(meta, "text/html", true).text).toContain("\u00e9t\u00e9");
    expect(decodeBody(windows1252("\u00e9t\u00e9"), 'text/plain; charset="ISO-8859-1"', false).text).toBe("\u00e9t\u00e9");
  });

  test("a byte-order mark wins, as in browsers", () => {
    const utf8 = concat(new Uint8Array([0xef, 0xbb, 0xbf]), new TextEncoder().encode("\u00e9t\u00e9"));
    expect(decodeBody(utf8, "text/plain; charset=iso-8859-1", false)).toEqual({ text: "\u00e9t\u00e9", encoding: "utf-8" });
    const utf16 = new Uint8Array([0xff, 0xfe, 0x41, 0x00, 0xe9, 0x00]);
    expect(decodeBody(utf16, null, false).text).toBe("A\u00e9");
  });

  test("UTF-8 bytes under a legacy label are read as UTF-8 (a mislabel, not Latin-1 text)", () => {
    expect(decodeBody(new TextEncoder().encode("<meta charset=iso-8859-1>\u00e9t\u00e9"), "text/html", true).text).toContain(
      "\u00e9t\u00e9",
    );
  });

  test("undeclared bytes are UTF-8 when valid, else windows-1252; unknown labels are ignored", () => {
    expect(decodeBody(new TextEncoder().encode("na\u00efve"), null, true).encoding).toBe("utf-8");
    expect(decodeBody(windows1252("na\u00efve"), null, true)).toEqual({ text: "na\u00efve", encoding: "windows-1252" });
    expect(decodeBody(windows1252("na\u00efve"), "text/html; charset=x-no-such-charset", true).text).toBe("na\u00efve");
  });
});
