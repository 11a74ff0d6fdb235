import { describe, expect, test } from "bun:test";
import { againstBound, medianInterval } from "./median-interval.ts";

describe("the median of rounds and its interval", () => {
  test("8 rounds: the 2nd smallest to the 2nd largest, 93% (1 − 2 × 9/256)", () => {
    const interval = medianInterval([1.08, 1.01, 1.2, 1.03, 0.97, 1.05, 1.04, 1.02])!;
    expect(interval.median).toBeCloseTo(1.035, 10);
    expect([interval.low, interval.high]).toEqual([1.01, 1.08]);
    expect(interval.coverage).toBeCloseTo(1 - (2 * 9) / 256, 10);
  });

  test("12 rounds: the 3rd from each end, 96%; asked for 99%, the 2nd", () => {
    const values = Array.from({ length: 12 }, (_, i) => 1 + i / 100);
    const ninety = medianInterval(values)!;
    expect([ninety.low, ninety.high]).toEqual([1.02, 1.09]);
    expect(ninety.coverage).toBeCloseTo(1 - (2 * 79) / 4096, 10);
    const ninetyNine = medianInterval(values, 0.99)!;
    expect([ninetyNine.low, ninetyNine.high]).toEqual([1.01, 1.1]);
    expect(ninetyNine.coverage).toBeGreaterThanOrEqual(0.99);
  });

  test("too few rounds for 90%: the whole range, with the coverage it has", () => {
    const interval = medianInterval([1.1, 1.0, 1.05, 1.02])!;
    expect([interval.low, interval.high]).toEqual([1.0, 1.1]);
    expect(interval.coverage).toBeCloseTo(0.875, 10);
    expect(medianInterval([1.3])).toEqual({ median: 1.3, low: 1.3, high: 1.3, coverage: 0 });
    expect(medianInterval([])).toBeUndefined();
  });

  test("against a bound: within only when the whole interval is, over only when all of it is", () => {
    const at = (low: number, high: number) => againstBound({ median: (low + high) / 2, low, high, coverage: 0.93 }, 1.05);
    expect(at(1.01, 1.05)).toBe("within");
    expect(at(1.03, 1.07)).toBe("can't tell");
    expect(at(1.051, 1.09)).toBe("over");
  });
});
