import { describe, expect, test } from "bun:test";
import { splitPassages } from "../contents/passages.ts";
import { countTokens } from "../tokens.ts";
import { PassageCache } from "./passage-cache.ts";

const markdown = (topic: string) =>
  [`# The ${topic}`, `The ${topic} opens in spring, the council said.`, `Its cost is 42 million euros, paid by the region.`].join("\n\n");
const page = (id: string, topic: string, fetchedAt = new Date(Date.UTC(2030, 0, 1))) => ({ id, fetchedAt, markdown: markdown(topic) });

describe("a stored page's passages", () => {
  test("are cut as splitPassages cuts them, each with its token count", () => {
    const cut = new PassageCache().passagesOf(page("page_a", "bridge"));
    expect(cut).toEqual(
      splitPassages(markdown("bridge")).map((p) => ({ text: p.content, heading: p.heading, tokens: countTokens(p.content) })),
    );
    expect(cut[0]!.tokens).toBeGreaterThan(5);
  });

  test("are cut once per version: the same id and fetch time reuse the cut, a new fetch time cuts again", () => {
    const cache = new PassageCache();
    const first = cache.passagesOf(page("page_a", "bridge"));
    expect(cache.passagesOf(page("page_a", "bridge"))).toBe(first);
    const refreshed = cache.passagesOf(page("page_a", "tunnel", new Date(Date.UTC(2030, 0, 2))));
    expect(refreshed).not.toBe(first);
    expect(refreshed[0]!.text).toContain("tunnel");
  });

  test("the least recently used page leaves first when the characters held pass the bound", () => {
    const size = new PassageCache().passagesOf(page("x", "bridge")).reduce((sum, p) => sum + p.text.length, 0);
    const cache = new PassageCache(size * 2);
    const a = cache.passagesOf(page("page_a", "bridge"));
    const b = cache.passagesOf(page("page_b", "bridge"));
    expect(cache.passagesOf(page("page_a", "bridge"))).toBe(a);
    cache.passagesOf(page("page_c", "bridge"));
    // b was used least recently: it left; a and c stay.
    expect(cache.passagesOf(page("page_a", "bridge"))).toBe(a);
    expect(cache.passagesOf(page("page_b", "bridge"))).not.toBe(b);
  });

  test("a page larger than the whole cache is cut for its search and not kept", () => {
    const cache = new PassageCache(10);
    const first = cache.passagesOf(page("page_a", "bridge"));
    expect(first.length).toBeGreaterThan(0);
    expect(cache.passagesOf(page("page_a", "bridge"))).not.toBe(first);
  });
});
