import { describe, expect, test } from "bun:test";
import { usageHref, usageQuery, viewOf } from "./usage-view.ts";

describe("the usage page's view lives in its URL", () => {
  test("a view goes to a URL and comes back the same; the defaults are left out", () => {
    const view = { days: "7", key: "key_abc", route: "POST /v1/search", apiId: "12", chart: "cost" } as const;
    const href = usageHref(view);
    expect(href).toBe("/dashboard/usage?days=7&key=key_abc&route=POST+%2Fv1%2Fsearch&api_id=12&chart=cost");
    expect(viewOf(new URL(href, "http://x").searchParams)).toEqual(view);
    expect(usageHref(viewOf(new URLSearchParams()))).toBe("/dashboard/usage");
  });

  test("odd values in a hand-made URL fall back to the defaults instead of reaching the API", () => {
    expect(viewOf(new URLSearchParams(`days=9999&chart=pie&api_id=-1&key=key%00x&route=${"a".repeat(201)}`))).toEqual({
      days: "30",
      key: "",
      route: "",
      apiId: "",
      chart: "calls",
    });
  });

  test("the API's query names the filters as GET /v1/usage does", () => {
    expect(usageQuery({ days: "90", key: "key_abc", route: "GET /v1/keys", apiId: "", chart: "calls" })).toBe(
      "days=90&key_id=key_abc&route=GET+%2Fv1%2Fkeys",
    );
  });
});
