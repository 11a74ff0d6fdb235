import { expect, test } from "bun:test";
import { truncateLists } from "./max-results.ts";

test("max_results cuts every top-level list, and nothing else", () => {
  const answer = { products: [1, 2, 3, 4], tags: ["a", "b", "c"], name: "bridge", nested: { items: [1, 2, 3] }, none: [] };
  expect(truncateLists(answer, 2)).toEqual({ products: [1, 2], tags: ["a", "b"], name: "bridge", nested: { items: [1, 2, 3] }, none: [] });
});

test("without max_results the answer is untouched", () => {
  const answer = { products: [1, 2, 3] };
  expect(truncateLists(answer, undefined)).toBe(answer);
});
