import { expect, test } from "bun:test";
import { citationFilter } from "./citations.ts";

test("markers of unknown sources are dropped even when split across deltas", () => {
  const filter = citationFilter(new Set([1, 2]));
  const out =
    ["The bridge opens in May [", "1][", "7] and costs 40 million [2", "]. See [3]", " and [12"].map((d) => filter.push(d)).join("") +
    filter.flush();
  expect(out).toBe("The bridge opens in May [1] and costs 40 million [2]. See  and [12");
});

test("brackets that are not markers pass through", () => {
  const filter = citationFilter(new Set([1]));
  expect(filter.push("arrays like [a, b] and [") + filter.push("x] stay") + filter.flush()).toBe("arrays like [a, b] and [x] stay");
});
