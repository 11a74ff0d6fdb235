import { describe, expect, test } from "bun:test";
import { inScope, parseScopeEntry, scopeOf } from "./source-scope.ts";

describe("source scopes", () => {
  test("domains and URL prefixes are read the way callers write them", () => {
    expect(parseScopeEntry("Example.com")).toEqual({ host: "example.com" });
    expect(parseScopeEntry("*.example.com")).toEqual({ host: "example.com" });
    expect(parseScopeEntry("www.example.com")).toEqual({ host: "example.com" });
    expect(parseScopeEntry("https://example.com/blog")).toEqual({ prefix: ["https://example.com/blog"] });
    expect(parseScopeEntry("example.com/docs")).toEqual({ prefix: ["http://example.com/docs", "https://example.com/docs"] });
    for (const bad of ["", "not a domain", "ftp://x.com", "https://user:pw@x.com", "exa mple.com"]) expect(parseScopeEntry(bad)).toBeNull();
  });

  test("a domain covers its subdomains, not look-alikes", () => {
    const { scope } = scopeOf(["example.com", "https://docs.other.org/v2"]);
    expect(inScope("https://example.com/a", scope)).toBe(true);
    expect(inScope("https://news.example.com/a", scope)).toBe(true);
    expect(inScope("https://notexample.com/a", scope)).toBe(false);
    expect(inScope("https://example.com.evil.net/a", scope)).toBe(false);
    expect(inScope("https://docs.other.org/v2/page", scope)).toBe(true);
    expect(inScope("https://docs.other.org/v1/page", scope)).toBe(false);
  });

  test("invalid entries are reported by position", () => {
    expect(scopeOf(["ok.com", "bad entry", "also.ok"]).invalid).toEqual([1]);
  });
});
