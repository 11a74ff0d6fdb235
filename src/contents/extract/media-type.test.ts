import { describe, expect, test } from "bun:test";
import { ServiceError } from "../../errors.ts";
import { minimalPdf } from "../../../test/helpers/fixtures/pdf.ts";
import { extractDocument } from "./index.ts";
import { detectMediaType } from "./media-type.ts";

const encode = (text: string) => new TextEncoder().encode(text);

const onePagePdf = (sentence: string, info: { title: string; author: string }) =>
  minimalPdf([sentence], { ...info, creationDate: "D:20200102030405Z" });

const SENTENCE = "Extraction reads this sentence from a tiny PDF.";
const ARTICLE = `<!doctype html><html><head><title>Not a PDF</title></head><body><article><h1>Not a PDF</h1><p>${"This page is HTML even though the server called it a PDF. ".repeat(6)}</p><p>${"A second paragraph keeps the article long enough. ".repeat(6)}</p></article></body></html>`;

describe("the body's bytes decide its type, not the header alone", () => {
  test("an HTML page served as application/pdf is extracted as HTML", async () => {
    const doc = await extractDocument({ body: encode(ARTICLE), contentType: "application/pdf", url: "https://example.com/report.pdf" });
    expect(doc.contentType).toBe("text/html");
    expect(doc.title).toBe("Not a PDF");
    expect(doc.text).toContain("This page is HTML even though the server called it a PDF.");
  });

  test("a PDF served as application/octet-stream is extracted as PDF, with its metadata", async () => {
    const body = onePagePdf(SENTENCE, { title: "Tiny Report", author: "Ada Lovelace" });
    const doc = await extractDocument({ body, contentType: "application/octet-stream", url: "https://example.com/download?id=7" });
    expect(doc).toMatchObject({
      contentType: "application/pdf",
      title: "Tiny Report",
      byline: "Ada Lovelace",
      publishedAt: "2020-01-02T03:04:05.000Z",
    });
    expect(doc.text).toBe(SENTENCE);
    expect(doc.markdown).toBe(SENTENCE);
    expect(doc.html).toContain(SENTENCE);
    // pdf.js gets a copy: the caller's buffer is not detached.
    expect(body.byteLength).toBeGreaterThan(0);
  });

  test("a PDF served as text/html is still a PDF (magic bytes win)", async () => {
    const doc = await extractDocument({
      body: onePagePdf(SENTENCE, { title: "T", author: "A" }),
      contentType: "text/html",
      url: "https://example.com/",
    });
    expect(doc.contentType).toBe("application/pdf");
  });

  test("image/png bytes throw unsupported_content_type", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    const attempt = extractDocument({ body: png, contentType: "image/png", url: "https://example.com/a.png" });
    await expect(attempt).rejects.toBeInstanceOf(ServiceError);
    await expect(attempt).rejects.toMatchObject({ code: "unsupported_content_type", message: expect.stringContaining("image/png") });
  });

  test("PNG bytes behind a text/html header, and opaque binary, are refused too", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    await expect(extractDocument({ body: png, contentType: "text/html", url: "https://example.com/" })).rejects.toMatchObject({
      code: "unsupported_content_type",
    });
    const binary = new Uint8Array(256).map((_, i) => i);
    await expect(
      extractDocument({ body: binary, contentType: "application/octet-stream", url: "https://example.com/" }),
    ).rejects.toMatchObject({ code: "unsupported_content_type" });
    await expect(
      extractDocument({ body: encode("PK\u0003\u0004zip"), contentType: "application/zip", url: "https://example.com/" }),
    ).rejects.toMatchObject({ code: "unsupported_content_type" });
    // A body whose Content-Encoding was not undone is binary, whatever its type says.
    const compressed = Bun.gzipSync(encode("<html><body><p>hello</p></body></html>")).subarray(10);
    await expect(extractDocument({ body: compressed, contentType: "text/html", url: "https://example.com/" })).rejects.toMatchObject({
      code: "unsupported_content_type",
    });
  });
});

describe("text and JSON pass through", () => {
  test("JSON is pretty-printed, fenced in markdown and escaped in HTML", async () => {
    const doc = await extractDocument({
      body: encode('{"name":"<b>x</b>","see":"https://example.org/a"}'),
      contentType: "application/json; charset=utf-8",
      url: "https://api.example.com/x",
    });
    expect(doc.contentType).toBe("application/json");
    expect(doc.text).toBe('{\n  "name": "<b>x</b>",\n  "see": "https://example.org/a"\n}');
    expect(doc.markdown).toBe("```json\n" + doc.text + "\n```");
    expect(doc.html).toStartWith('<pre><code class="language-json">{\n  &quot;name&quot;: &quot;&lt;b&gt;x&lt;/b&gt;&quot;');
    expect(doc.links).toEqual(["https://example.org/a"]);
  });

  test("JSON behind an opaque type is recognised; broken JSON stays text", async () => {
    expect((await extractDocument({ body: encode("[1, 2]"), contentType: null, url: "https://x.example/" })).contentType).toBe(
      "application/json",
    );
    const broken = await extractDocument({ body: encode('{"a": '), contentType: "application/json", url: "https://x.example/" });
    expect(broken).toMatchObject({ contentType: "text/plain", text: '{"a":' });
  });

  test("plain text stays text, markdown stays markdown", async () => {
    const text = await extractDocument({
      body: encode("Line one.\r\n\r\nLine <two> & more.\n"),
      contentType: "text/plain",
      url: "https://x.example/a.txt",
    });
    expect(text).toMatchObject({
      contentType: "text/plain",
      text: "Line one.\n\nLine <two> & more.",
      markdown: "Line one.\n\nLine <two> & more.",
      html: "<pre>Line one.\n\nLine &lt;two&gt; &amp; more.</pre>",
      title: null,
    });
    const markdown = await extractDocument({
      body: encode("# Read me\n\nSome *text*."),
      contentType: "text/markdown",
      url: "https://x.example/README.md",
    });
    expect(markdown).toMatchObject({ contentType: "text/markdown", title: "Read me", markdown: "# Read me\n\nSome *text*." });
  });

  test("an empty body is empty text, not an error", async () => {
    const doc = await extractDocument({ body: new Uint8Array(0), contentType: null, url: "https://x.example/" });
    expect(doc).toMatchObject({ contentType: "text/plain", text: "", markdown: "", html: "", links: [] });
    const html = await extractDocument({ body: new Uint8Array(0), contentType: "text/html", url: "https://x.example/" });
    expect(html).toMatchObject({ contentType: "text/html", text: "", title: null });
  });
});

describe("an unsupported type is named in our words", () => {
  test("a well-formed declared type is repeated; anything else of the site's header is not", () => {
    const refusal = (contentType: string) => {
      try {
        detectMediaType(new Uint8Array([0, 1, 2, 3, 0, 0, 7]), contentType);
        return "";
      } catch (error) {
        return (error as ServiceError).message;
      }
    };
    expect(refusal("application/x-thing")).toContain("application/x-thing");
    const hostile = `application/${"x".repeat(5000)}<script>alert(1)</script>`;
    const message = refusal(hostile);
    expect(message).toContain("(an unrecognised type)");
    expect(message).not.toContain("<script>");
    expect(message.length).toBeLessThan(200);
  });
});
