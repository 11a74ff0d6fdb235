import { describe, expect, test } from "bun:test";
import type { EndpointRecord } from "../../model.ts";
import { endpointVersions, usageHref, usageQuery, viewOf } from "./usage-view.ts";

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

describe("the endpoints the usage page names", () => {
  test("each version of each endpoint by name, newest first, the live one said so", () => {
    const endpoint = (api_name: string, versions: { id: number; version: number; is_live: boolean }[]) =>
      ({ api_name, versions: versions.map((v) => ({ ...v, frozen_at: null, is_latest: false })) }) as unknown as EndpointRecord;
    expect(
      endpointVersions([
        endpoint("Landmark facts", [
          { id: 4, version: 1, is_live: false },
          { id: 9, version: 2, is_live: true },
        ]),
        endpoint("Prices", [{ id: 5, version: 1, is_live: true }]),
      ]),
    ).toEqual([
      { id: "9", label: "Landmark facts v2 (live)" },
      { id: "4", label: "Landmark facts v1" },
      { id: "5", label: "Prices v1 (live)" },
    ]);
  });
});
