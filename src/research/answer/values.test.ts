import { describe, expect, test } from "bun:test";
import { dateSpans, isNegated, nameSpans, numberMentions, yearMentions } from "./values.ts";

const values = (text: string) => numberMentions(text).map((m) => m.value);

describe("numbers are read with their separators, scales, currencies and units", () => {
  test("thousands separators and decimals, English and European", () => {
    expect(values("It employs 1,234 people and 12,400 contractors.")).toEqual([1234, 12400]);
    expect(values("Die Höhe beträgt 65,5 Meter, der Umsatz 1.234.567 Euro.")).toEqual([65.5, 1234567]);
    expect(values("Version 3.5 shipped.")).toEqual([3.5]);
  });

  test("scale words and currency-bound letter scales multiply; a bare 40m is a length", () => {
    expect(values("It raised 3.5 million users, $40m in funding and €3bn in debt, 3,5 Mio. Euro in Berlin.")).toEqual([
      3_500_000, 40_000_000, 3_000_000_000, 3_500_000,
    ]);
    const tall = numberMentions("The mast is 40m tall.")[0]!;
    expect([tall.value, tall.unit]).toEqual([40, "m"]);
  });

  test("percentages, money and units are told apart", () => {
    const [growth, price, height] = numberMentions("Sales grew 12% to $49.99 a unit; the tower is 330 metres tall.");
    expect(growth).toMatchObject({ value: 12, isPercent: true, isMoney: false });
    expect(price).toMatchObject({ value: 49.99, isMoney: true });
    expect(height).toMatchObject({ value: 330, unit: "metres" });
  });

  test("years stand alone; numbers with separators or currency are not years", () => {
    expect(yearMentions("Built 1887–1889, sold for $1999 and 1,999 times in 2023.").map((y) => y.value)).toEqual([1887, 1889, 2023]);
    expect(numberMentions("In 1948 it had 2000 staff.").map((m) => m.isYear)).toEqual([true, true]);
  });

  test("counts spelled out, without the ambiguous 'one'", () => {
    expect(values("The Solar System has eight planets, one of them ours.")).toEqual([8]);
  });
});

describe("signs and spelled-out scales", () => {
  test("a spelled-out count takes its scale word; a minus sign or word negates, a range's dash does not", () => {
    const values = (text: string) => numberMentions(text).map((m) => m.value);
    expect(values("shipped over eight million units")).toEqual([8_000_000]);
    expect(values("it fell to -6.6C, or minus 3 degrees")).toEqual([-6.6, -3]);
    expect(values("the Sixers won 106-103; pages 10 - 20")).toEqual([106, 103, 10, 20]);
  });

  test("temperatures, storage and currencies written after the number", () => {
    const read = (text: string) => numberMentions(text).map((m) => [m.value, m.unit, m.isMoney]);
    expect(read("80TB drives bake at 200°C")).toEqual([
      [80, "tb", false],
      [200, "°c", false],
    ]);
    expect(read("a 1.2-billion-yuan telescope")).toEqual([[1_200_000_000, null, true]]);
  });
});

describe("dates, names and negations are found as verbatim spans", () => {
  test("dates in English, German, French and ISO form", () => {
    expect(
      dateSpans("on March 31, 1889; 15 May 1890; le 31 mars 1889; am 31. März 1889; in June 2001; 2001-06-05").map((d) => d.text),
    ).toEqual(["March 31, 1889", "15 May 1890", "31 mars 1889", "31. März 1889", "June 2001", "2001-06-05"]);
  });

  test("names are runs of capitalised words with initials and connectors, not sentence openers or possessives", () => {
    expect(
      nameSpans("The company was founded by Wile E. Coyote and the Bank of America in Springfield, then Gustave Eiffel's firm joined.").map(
        (n) => n.text,
      ),
    ).toEqual(["Wile E. Coyote", "Bank of America", "Gustave Eiffel"]);
  });

  test("negations in several languages, but not 'not only'", () => {
    expect(isNegated("Nimbus no longer supports Windows")).toBe(true);
    expect(isNegated("it isn't listed")).toBe(true);
    expect(isNegated("das Tor ist nicht geöffnet")).toBe(true);
    expect(isNegated("la société n'est pas cotée")).toBe(true);
    expect(isNegated("it is not only fast but free")).toBe(false);
    expect(isNegated("it is publicly traded")).toBe(false);
  });
});
