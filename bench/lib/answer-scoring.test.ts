import { describe, expect, test } from "bun:test";
import {
  citationHolds,
  citedSentences,
  declines,
  fieldSupported,
  fieldWords,
  filledFields,
  holdsExpected,
  numbersIn,
  plainCause,
  scoreFields,
  stringMatches,
} from "./answer-scoring.ts";

const entry = (id: number, content: string) => ({ id, metadata: { title: "t", url: `http://a.test/${id}`, content } });

describe("plain answers", () => {
  test("an answer is right when it holds any expected string, case, quotes and spacing aside", () => {
    expect(holdsExpected("It was designed by  Blake and Mouton in 1964. [1]", ["blake and mouton"])).toBe(true);
    expect(holdsExpected("It opened in “Montego Bay”. [1]", ['"montego bay"'])).toBe(true);
    expect(holdsExpected("It opened in Kingston. [1]", ["montego bay", "montego bay convention centre"])).toBe(false);
  });

  test("a failure is put down to the page not found, then to a declined answer, then to the wrong sentence", () => {
    expect(plainCause({ ok: true, status: 200, found: true, answer: "x [1]" })).toBeNull();
    expect(plainCause({ ok: false, status: 500, found: false, answer: "" })).toBe("request failed");
    expect(plainCause({ ok: false, status: 200, found: false, answer: "Something else. [1]" })).toBe("page not found");
    expect(plainCause({ ok: false, status: 200, found: true, answer: "I could not find sources that answer this question." })).toBe(
      "no answer",
    );
    expect(plainCause({ ok: false, status: 200, found: true, answer: "Something else. [1]" })).toBe("wrong sentence");
    expect(declines("Something. [2]")).toBe(false);
  });
});

describe("cited sentences", () => {
  test("each sentence goes with the markers after it; a footnote inside a sentence stays in it", () => {
    const answer = "The tower opened in 1889.[4] to crowds. [1][3] It is 330 metres tall. [2]";
    expect(citedSentences(answer)).toEqual([
      { sentence: "The tower opened in 1889.[4] to crowds.", ids: [1, 3] },
      { sentence: "It is 330 metres tall.", ids: [2] },
    ]);
  });

  test("a cited sentence holds only when every entry it cites contains it", () => {
    const context = [entry(1, "Intro. The tower   opened in 1889. More."), entry(2, "Other text.")];
    expect(citationHolds({ sentence: "The tower opened in 1889.", ids: [1] }, context)).toBe(true);
    expect(citationHolds({ sentence: "The tower opened in 1889.", ids: [1, 2] }, context)).toBe(false);
    expect(citationHolds({ sentence: "The tower opened in 1889.", ids: [3] }, context)).toBe(false);
  });

  test("a pronoun's entity in square brackets is the answerer's insertion: out of the quote, but in the entry", () => {
    const context = [entry(1, "The Eiffel Tower stands in Paris. It opened in 1889.")];
    expect(citationHolds({ sentence: "It [Eiffel Tower] opened in 1889.", ids: [1] }, context)).toBe(true);
    expect(citationHolds({ sentence: "It [Tokyo Tower] opened in 1889.", ids: [1] }, context)).toBe(false);
  });
});

describe("structured fields", () => {
  test("a string equals an alternative, or holds one while at most twice its length", () => {
    expect(stringMatches("Fidelis Mukonori", "fidelis mukonori")).toBe(true);
    expect(stringMatches("the ARM Cortex-A53", ["ARM Cortex-A53", "Cortex-A53"])).toBe(true);
    expect(stringMatches("the ARM Cortex-A53 CPU with other architectural enhancements", ["Cortex-A53"])).toBe(false);
    expect(stringMatches(null, "x")).toBe(false);
  });

  test("numbers within half a percent, booleans equal, null right only for null, each with its cause", () => {
    const shape = { price: "number", count: "integer", free: "boolean", email: "string", since: "string" };
    const expected = { price: 9.99, count: 8000000, free: true, email: null, since: ["1980"] };
    const scores = scoreFields(shape, expected, { price: 10.03, count: 8, free: true, email: "a@b.c", since: null });
    expect(scores.map((s) => [s.path, s.group, s.ok, s.cause])).toEqual([
      ["price", "number", true, null],
      ["count", "integer", false, "wrong value"],
      ["free", "boolean", true, null],
      ["email", "string", false, "value though null expected"],
      ["since", "date-like string", false, "null though expected"],
    ]);
  });

  test("a date-like string is told by its field's name or by its expected value", () => {
    const scores = scoreFields({ story: "string", on: "string" }, { story: "Feb. 23, 2015", on: "Tuesday" }, { story: null, on: null });
    expect(scores.map((s) => s.group)).toEqual(["date-like string", "string"]);
  });

  test("each expected list item is matched to the answered item getting most of its leaves right", () => {
    const shape = { forecast: [{ day: "string", high: "number" }] };
    const expected = {
      forecast: [
        { day: "Monday", high: 20 },
        { day: "Tuesday", high: 18 },
      ],
    };
    const answered = {
      forecast: [
        { day: "Tuesday", high: 18 },
        { day: "Monday", high: 25 },
      ],
    };
    const scores = scoreFields(shape, expected, answered);
    expect(scores.map((s) => [s.path, s.group, s.ok])).toEqual([
      ["forecast[0].day", "list", true],
      ["forecast[0].high", "list", false],
      ["forecast[1].day", "list", true],
      ["forecast[1].high", "list", true],
    ]);
    expect(scoreFields(shape, expected, { forecast: null }).every((s) => s.cause === "null though expected")).toBe(true);
    expect(scoreFields(shape, { forecast: null }, { forecast: [] })).toEqual([{ path: "forecast", group: "list", ok: true, cause: null }]);
  });

  test("filled fields are every non-null leaf of the answer, inside lists too", () => {
    const shape = { name: "string", items: [{ label: "string", n: "number" }], ok: "boolean" };
    const answered = {
      name: "A",
      items: [
        { label: "x", n: null },
        { label: null, n: 2 },
      ],
      ok: false,
    };
    expect(filledFields(shape, answered)).toEqual([
      { path: "name", field: "name", value: "A" },
      { path: "items[0].label", field: "label", value: "x" },
      { path: "items[1].n", field: "n", value: 2 },
      { path: "ok", field: "ok", value: false },
    ]);
  });
});

describe("support in the sources", () => {
  test("numbers are read with separators, decimals, scale words and the words one to twenty", () => {
    const read = numbersIn(
      "It cost $4.5bn, sold 1,250,000 copies, 1.2 million more, 300k fans, twelve shops, two million, -3 C, 2010-2015",
    );
    for (const n of [4.5e9, 1250000, 1.2e6, 300000, 12, 2e6, -3, 2015]) expect(read).toContain(n);
    expect(read).not.toContain(-2015);
  });

  test("a filled field is supported when some source states it", () => {
    const contents = [
      "The Raspberry Pi 3 costs $35 and the foundation has shipped over eight million units.",
      "Fidelis Mukonori mediates.",
    ];
    expect(fieldSupported({ path: "price", field: "price", value: 35 }, contents)).toBe(true);
    expect(fieldSupported({ path: "units", field: "units", value: 8000000 }, contents)).toBe(true);
    expect(fieldSupported({ path: "units", field: "units", value: 2000 }, contents)).toBe(false);
    expect(fieldSupported({ path: "who", field: "who", value: "fidelis  MUKONORI" }, contents)).toBe(true);
    expect(fieldSupported({ path: "who", field: "who", value: "Robert Mugabe" }, contents)).toBe(false);
    expect(fieldSupported({ path: "is_shipped", field: "is_shipped", value: true }, contents)).toBe(true);
    expect(fieldSupported({ path: "is_free", field: "is_free", value: false }, contents)).toBe(false);
  });

  test("a field's words come from snake and camel case, without filler", () => {
    expect(fieldWords("is_buy_rating")).toEqual(["buy", "rating"]);
    expect(fieldWords("hasFreeTier")).toEqual(["free", "tier"]);
  });
});
