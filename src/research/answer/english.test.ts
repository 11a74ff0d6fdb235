import { describe, expect, test } from "bun:test";
import { countrySpans } from "./countries.ts";
import { lemmaOf, tagged } from "./english.ts";
import { entitySpans } from "./entities.ts";

describe("the English model", () => {
  test("lemmas join irregular forms; words it cannot read are left as they are", () => {
    expect(["wrote", "written", "bought", "children", "led"].map(lemmaOf)).toEqual(["write", "write", "buy", "child", "lead"]);
    expect(lemmaOf("über")).toBe("über");
    expect(lemmaOf("m83")).toBe("m83");
  });

  test("tags carry offsets into the sentence, whatever its spacing", () => {
    const text = "Joyent  hosts it,  with Cortex-A53.";
    for (const token of tagged(text)) expect(text.slice(token.start, token.end)).toBe(token.text);
    expect(tagged(text).find((t) => t.text === "Joyent")?.pos).toBe("PROPN");
  });
});

describe("names a text field may ask for", () => {
  test("names, codes, domains and addresses; not a capitalised word that only opens the sentence, nor a weekday", () => {
    const spans = entitySpans(
      "Interest rose on Tuesday at Joyent, which runs Cortex-A53 boards; write to ops@joyent.com or see joyent.com.",
    );
    expect(spans.map((s) => s.text)).toEqual(["Joyent", "Cortex-A53", "ops@joyent.com", "joyent.com"]);
  });

  test("a quoted title and a country named with 'and' are one name each", () => {
    const text = "Laura Dern won for “Marriage Story” before the trip to Antigua and Barbuda.";
    expect(entitySpans(text).map((s) => s.text)).toEqual(["Laura Dern", "Marriage Story", "Antigua and Barbuda"]);
  });

  test("countries by the runtime's own region names, as verbatim spans", () => {
    const text = "Sanctions on Sudan, lifted by the United States, not by Côte d’Ivoire.";
    for (const span of countrySpans(text)) expect(text.slice(span.index, span.end)).toBe(span.text);
    expect(countrySpans(text).map((s) => s.text)).toEqual(["Sudan", "United States", "Côte d’Ivoire"]);
  });
});
