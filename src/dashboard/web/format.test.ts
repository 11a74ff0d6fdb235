import { describe, expect, test } from "bun:test";
import { formatMs, formatMoney } from "./format.ts";

// The tests run in an en-US locale (Bun's default); the rule is about digits, which every locale keeps.
describe("formatMoney: one rule for money on every page", () => {
  test("zero and amounts of a dollar or more read in cents", () => {
    expect(formatMoney(0)).toBe("$0.00");
    expect(formatMoney(1)).toBe("$1.00");
    expect(formatMoney(12.5)).toBe("$12.50");
    expect(formatMoney(1234.567)).toBe("$1,234.57");
  });

  test("a nonzero amount under a dollar keeps four significant digits, and never reads $0.00", () => {
    expect(formatMoney(0.27166)).toBe("$0.2717");
    expect(formatMoney(0.0027)).toBe("$0.0027");
    expect(formatMoney(0.00271666)).toBe("$0.002717");
    expect(formatMoney(0.5)).toBe("$0.50");
    expect(formatMoney(0.05)).toBe("$0.05");
    expect(formatMoney(0.000001)).toBe("$0.000001");
    expect(formatMoney(0.0000001)).toBe("< $0.000001");
    for (const amount of [0.01, 0.001, 0.0001, 0.00001, 0.000001, 0.0000004, 0.999]) expect(formatMoney(amount)).not.toBe("$0.00");
  });

  test("the same amount reads the same every time (a balance, a day's cost, a call's cost)", () => {
    expect(new Set([formatMoney(0.0027), formatMoney(0.0027), formatMoney(0.0027 + 0)]).size).toBe(1);
  });

  test("negative amounts mirror positive ones", () => {
    expect(formatMoney(-0.0027)).toBe("-$0.0027");
    expect(formatMoney(-3)).toBe("-$3.00");
  });
});

describe("formatMs", () => {
  test("milliseconds under a second, seconds with one decimal above, a dash when not recorded", () => {
    expect(formatMs(85)).toBe("85 ms");
    expect(formatMs(1234)).toBe("1.2 s");
    expect(formatMs(null)).toBe("–");
  });
});
