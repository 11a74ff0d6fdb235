import { describe, expect, test } from "bun:test";
import { extractDocument, type ExtractedDocument } from "./index.ts";

const URL_ = "https://example.com/blog/2021/post.html";

function extractHtml(html: string, url = URL_): Promise<ExtractedDocument> {
  return extractDocument({ body: new TextEncoder().encode(html), contentType: "text/html; charset=utf-8", url });
}

/** Enough prose that both extractors accept the container as an article. */
const PROSE = [
  "The committee met on Tuesday to review the proposal in detail, and its members agreed that the draft needed more work before a vote.",
  "Several speakers raised concerns about the cost of the plan, which the authors estimate at four million over five years, and asked for an independent audit.",
  "In the end the chair proposed a second reading next month, giving the authors time to answer the questions raised during the session.",
].map((text) => `<p>${text}</p>`);

function page(article: string, extra = ""): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Council review | Example News</title></head><body>${extra}<article><h1>Council review</h1>${article}</article></body></html>`;
}

describe("markdown keeps the structure of the article", () => {
  test("headings, nested lists and links made absolute", async () => {
    const doc = await extractHtml(
      page(
        `${PROSE[0]}<h2>What was decided</h2><ul><li>First point<ul><li>Detail A</li><li>Detail B</li></ul></li><li>Second point with <a href="../../docs/plan.pdf">the plan</a></li></ul>${PROSE[1]}<h3>Next steps</h3><ol><li>Draft</li><li>Vote</li></ol>${PROSE[2]}`,
      ),
    );
    expect(doc.markdown).toContain("## What was decided");
    expect(doc.markdown).toContain("### Next steps");
    expect(doc.markdown).toContain("- First point\n  - Detail A\n  - Detail B\n- Second point");
    expect(doc.markdown).toContain("1. Draft\n2. Vote");
    expect(doc.markdown).toContain("[the plan](https://example.com/docs/plan.pdf)");
    expect(doc.links).toEqual(["https://example.com/docs/plan.pdf"]);
  });

  test("a data table becomes a GFM table", async () => {
    const doc = await extractHtml(
      page(
        `${PROSE[0]}<table><thead><tr><th>Year</th><th>Cost</th></tr></thead><tbody><tr><td>2021</td><td>1.2 M</td></tr><tr><td>2022</td><td>0.8 M</td></tr></tbody></table>${PROSE[1]}${PROSE[2]}`,
      ),
    );
    expect(doc.markdown).toContain("| Year | Cost |\n| --- | --- |\n| 2021 | 1.2 M |\n| 2022 | 0.8 M |");
    expect(doc.text).toContain("Year\tCost\n2021\t1.2 M");
  });

  test("a code block is fenced with its language", async () => {
    const doc = await extractHtml(
      page(
        `${PROSE[0]}<pre><code class="language-typescript">const total = items.reduce((sum, item) =&gt; sum + item.cost, 0);\nconsole.log(total);</code></pre>${PROSE[1]}${PROSE[2]}`,
      ),
    );
    expect(doc.markdown).toContain(
      "```typescript\nconst total = items.reduce((sum, item) => sum + item.cost, 0);\nconsole.log(total);\n```",
    );
    expect(doc.html).toContain('<pre><code class="language-typescript">');
  });

  test("text has paragraphs separated by blank lines", async () => {
    const doc = await extractHtml(page(PROSE.join("")));
    expect(doc.text.split("\n\n")).toHaveLength(3);
  });
});

describe("boilerplate is removed", () => {
  test("navigation, cookie banner, share buttons, comments and footer", async () => {
    const doc = await extractHtml(`<!doctype html><html><head><title>Council review</title></head><body>
      <nav><a href="/">Home</a><a href="/news">News</a><a href="/sport">Sport</a></nav>
      <div id="cookie-consent">We use cookies to improve your experience. <a href="/privacy">Privacy policy</a></div>
      <article><h1>Council review</h1>${PROSE.join("")}
        <div class="share-buttons"><a href="https://twitter.com/intent/tweet">Share on Twitter</a> <a href="https://facebook.com/sharer">Share on Facebook</a></div>
      </article>
      <section id="comments"><h2>3 comments</h2><div class="comment"><p>First! Totally agree with the committee on everything they said today.</p></div></section>
      <footer><p>Copyright 2021 Example News. All rights reserved.</p><a href="/imprint">Imprint</a></footer>
    </body></html>`);
    expect(doc.text).toContain("The committee met on Tuesday");
    expect(doc.text).toContain("answer the questions raised during the session.");
    for (const boilerplate of ["Home", "cookies", "Share on", "First!", "comments", "Copyright", "Imprint"])
      expect(doc.text).not.toContain(boilerplate);
    expect(doc.links).toEqual([]);
  });

  test("related links and photo credits inside the article", async () => {
    const doc = await extractHtml(
      page(
        `${PROSE[0]}<figure><img src="/photo.jpg" alt="The council chamber"><figcaption>Photo: Jane Roe / Example Agency</figcaption></figure>${PROSE[1]}<p>Read also: <a href="/other">Budget passes after long night</a></p>${PROSE[2]}<div class="related-posts"><h3>Related</h3><ul><li><a href="/a">One</a></li><li><a href="/b">Two</a></li></ul></div>`,
      ),
    );
    expect(doc.text).not.toContain("Jane Roe");
    expect(doc.text).not.toContain("Budget passes");
    expect(doc.text).not.toContain("Related");
    expect(doc.text).toContain("independent audit");
  });

  test("the HTML output carries no script, style, handler or iframe", async () => {
    const doc = await extractHtml(
      page(
        `${PROSE[0]}<p onclick="steal()" style="color:red">Clickable <a href="javascript:alert(1)">link</a> and <img src="x.png" onerror="alert(2)"></p><script>alert(3)</script><iframe src="https://evil.example"></iframe>${PROSE[1]}${PROSE[2]}`,
      ),
    );
    expect(doc.html).not.toMatch(/<script|<style|<iframe|onclick|onerror|javascript:|style=/i);
    expect(doc.html).toContain('<img src="https://example.com/blog/2021/x.png">');
  });
});

describe("metadata", () => {
  test("title without the site suffix, byline, site name, date and language", async () => {
    const doc = await extractHtml(`<!doctype html><html lang="en-GB"><head><title>Council review | Example News</title>
      <meta property="og:site_name" content="Example News"><meta name="author" content="By Jane Doe">
      <meta property="article:published_time" content="2021-03-04T05:06:07+02:00"></head>
      <body><article><h1>Council review</h1>${PROSE.join("")}</article></body></html>`);
    expect(doc).toMatchObject({
      contentType: "text/html",
      title: "Council review",
      byline: "Jane Doe",
      siteName: "Example News",
      publishedAt: "2021-03-04T03:06:07.000Z",
      language: "en-GB",
    });
  });

  test("JSON-LD wins over meta tags, and <time> is the last resort for the date", async () => {
    const ld = {
      "@context": "https://schema.org",
      "@type": "NewsArticle",
      headline: "The real headline",
      author: [{ "@type": "Person", name: "Ann Smith" }, { name: "Bo Li" }],
      publisher: { name: "The Daily" },
    };
    const doc =
      await extractHtml(`<html><head><title>Other | Site</title><script type="application/ld+json">${JSON.stringify(ld)}</script></head>
      <body><article><h1>The real headline</h1><time datetime="2020-12-31">New Year's Eve</time>${PROSE.join("")}</article></body></html>`);
    expect(doc).toMatchObject({
      title: "The real headline",
      byline: "Ann Smith, Bo Li",
      siteName: "The Daily",
      publishedAt: "2020-12-31T00:00:00.000Z",
      language: null,
    });
  });
});
