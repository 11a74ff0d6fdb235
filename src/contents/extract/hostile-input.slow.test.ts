import { describe, expect, test } from "bun:test";
import { extractDocument } from "./index.ts";

const extract = (html: string) =>
  extractDocument({ body: new TextEncoder().encode(html), contentType: "text/html", url: "https://example.com/page" });

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}

describe("hostile input completes without throwing, in bounded time", () => {
  test("HTML nested 10,000 levels deep", async () => {
    const html = `<html><body>${"<div>".repeat(10_000)}<p>The text at the bottom of the well.</p>${"</div>".repeat(10_000)}</body></html>`;
    const { result, ms } = await timed(() => extract(html));
    expect(result.text).toContain("The text at the bottom of the well.");
    expect(ms).toBeLessThan(5_000);
  });

  test("10,000 unclosed inline elements", async () => {
    const { result, ms } = await timed(() => extract(`<html><body><p>start ${"<b><i><span>".repeat(10_000)}end`));
    expect(result.text).toContain("end");
    expect(ms).toBeLessThan(5_000);
  });

  test("a 5 MB page", async () => {
    const paragraph = `<p>${"Sentences of an unusually long article keep coming, one after another, without end. ".repeat(6)}</p>`;
    let html = `<html><head><title>Huge</title></head><body><nav>${'<a href="/x">menu</a> '.repeat(1_000)}</nav><article><h1>Huge</h1>`;
    while (html.length < 5_000_000) html += `${paragraph}<div class="inline-promo"><a href="/more">More stories</a></div>`;
    html += "</article></body></html>";
    const { result, ms } = await timed(() => extract(html));
    expect(result.text.length).toBeGreaterThan(4_000_000);
    expect(result.text).not.toContain("menu");
    expect(ms).toBeLessThan(20_000);
  });

  test("a 2 MB table and a 2 MB list stay linear", async () => {
    let table = "<html><body><table>";
    while (table.length < 2_000_000) table += "<tr><td>cell a</td><td>cell b</td><td>cell c</td></tr>";
    let list = "<html><body><ol>";
    while (list.length < 2_000_000) list += "<li>an item of the list</li>";
    const { result, ms } = await timed(async () => [
      await extract(`${table}</table></body></html>`),
      await extract(`${list}</ol></body></html>`),
    ]);
    expect(result[0]!.markdown).toStartWith("| cell a | cell b | cell c |\n| --- | --- | --- |");
    expect(result[1]!.markdown).toStartWith("1. an item of the list\n2. an item of the list");
    expect(ms).toBeLessThan(20_000);
  });

  test("malformed markup, stray closers and empty documents", async () => {
    for (const html of [
      "",
      " ",
      "<",
      "<<<>>><!--<div <p =>>></script><style>",
      "</div></div></body></html>",
      "<html><body></body></html>",
      "<p>unclosed <b>bold <i>both",
      `<p>${"stray control bytes in a page: \u0000\u0001\u0002 ".repeat(3)}${"padding words ".repeat(60)}</p>`,
      "<svg><script>alert(1)</script></svg>text",
    ]) {
      const result = await extract(html);
      expect(typeof result.text).toBe("string");
      expect(result.html).not.toContain("<script");
    }
  });
});
