import { describe, expect, test } from "bun:test";
import { HotPages } from "./hot-pages.ts";
import type { PageRow } from "./queries.ts";

function page(url: string, fetchedAt: number, chars = 1_000, id = `page_${url}`): PageRow {
  const body = "x".repeat(chars);
  return {
    id,
    url,
    finalUrl: url,
    host: "example.com",
    contentType: "text/html",
    title: `Title of ${url}`,
    byline: null,
    siteName: null,
    publishedAt: null,
    language: "en",
    html: body,
    markdown: body,
    text: body,
    links: [],
    wordCount: 1,
    tokenCount: 1,
    etag: null,
    lastModified: null,
    fetchedAt: new Date(fetchedAt),
    createdAt: new Date(fetchedAt),
  };
}

describe("hot pages", () => {
  test("a held page is found while fetched at or after the time asked for, not before", () => {
    const hot = new HotPages({ maxBytes: 1_000_000 });
    hot.hold(page("https://a.example/", 5_000));
    expect(hot.fresh("https://a.example/", 5_000)?.row.title).toBe("Title of https://a.example/");
    expect(hot.fresh("https://a.example/", 5_001)).toBeUndefined();
    expect(hot.fresh("https://b.example/", 0)).toBeUndefined();
  });

  test("an older copy never replaces a newer one; a newer one does", () => {
    const hot = new HotPages({ maxBytes: 1_000_000 });
    hot.hold(page("https://a.example/", 5_000, 10, "page_new"));
    hot.hold(page("https://a.example/", 4_000, 10, "page_old"));
    expect(hot.fresh("https://a.example/", 0)?.row.id).toBe("page_new");
    hot.hold(page("https://a.example/", 6_000, 10, "page_newer"));
    expect(hot.fresh("https://a.example/", 0)?.row.id).toBe("page_newer");
  });

  test("the same copy held again keeps its counted views; a new copy starts with none", () => {
    const hot = new HotPages({ maxBytes: 1_000_000 });
    const row = page("https://a.example/", 5_000);
    hot.hold(row);
    let counted = 0;
    const count = () => ({ words: ++counted, tokens: counted });
    HotPages.counted(hot.fresh(row.url, 0)!, "text:all", count);
    hot.hold(row);
    expect(HotPages.counted(hot.fresh(row.url, 0)!, "text:all", count)).toEqual({ words: 1, tokens: 1 });
    hot.hold(page("https://a.example/", 6_000));
    expect(HotPages.counted(hot.fresh(row.url, 0)!, "text:all", count)).toEqual({ words: 2, tokens: 2 });
  });

  test("bounded by bytes: the least recently used page goes first, and a page over its share is not held", () => {
    // Each page of 1,000 characters in three fields holds about 6.5 KB.
    const hot = new HotPages({ maxBytes: 20_000, maxPageBytes: 10_000 });
    hot.hold(page("https://a.example/", 1));
    hot.hold(page("https://b.example/", 1));
    hot.hold(page("https://c.example/", 1));
    expect(hot.fresh("https://a.example/", 0)).toBeDefined(); // a is now the most recently used
    hot.hold(page("https://d.example/", 1));
    expect(hot.fresh("https://b.example/", 0)).toBeUndefined();
    expect(["a", "c", "d"].map((name) => hot.fresh(`https://${name}.example/`, 0) !== undefined)).toEqual([true, true, true]);
    expect(hot.bytes).toBeLessThanOrEqual(20_000);
    hot.hold(page("https://big.example/", 1, 5_000));
    expect(hot.fresh("https://big.example/", 0)).toBeUndefined();
  });

  test("0 bytes holds nothing", () => {
    const hot = new HotPages({ maxBytes: 0 });
    hot.hold(page("https://a.example/", 1));
    expect(hot.fresh("https://a.example/", 0)).toBeUndefined();
    expect(hot.size).toBe(0);
  });
});
