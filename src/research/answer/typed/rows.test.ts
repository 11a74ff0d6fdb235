import { describe, expect, test } from "bun:test";
import { fillChecked, source } from "../../../../test/helpers/fixtures/extractive.ts";

const fill = fillChecked;

const rankings = source(1, "Birth lottery report", [
  "The report compared ten wealthy countries on poverty, mobility and the safety net.",
  "The overall rankings of the countries were as follows: \n1\\. Finland \n2\\. Norway \n3\\. Australia \n4\\. Canada",
]);

const recipe = source(1, "Roasted Chicken with Oriental Rice", [
  "Roast the chicken in a 200°C preheated oven for 45-50 minutes.",
  "INGREDIENTS\n1 large or 1200 g whole chicken\n2 tablespoons vegetable oil\n250 g minced lamb\n1 tablespoon ground cinnamon\n3 cubes MAGGI Chicken Stock",
]);

const benchmark = source(1, "Parsing JSON quickly: simdjson vs JSON for Modern C++", [
  "Let us run some benchmarks… I use a Skylake processor with GNU GCC 8.3.",
  "file simdjson JSON for Modern C++\napache_builds 2.3 GB/s 0.098 GB/s\ngithub_events 2.5 GB/s 0.093 GB/s\ngsoc-2018 3.3 GB/s 0.091 GB/s",
]);

const films = source(1, "List of films featuring time loops", [
  "Groundhog Day 1993 Self-centered television weatherman Phil Connors (Bill Murray) is forced to relive the same day over and over.[\n](https://en.wikipedia.org/wiki/List_of_films_featuring_time_loops#cite_note-15)\nRetroactive 1997 A psychiatrist makes multiple trips through time to save a woman.[\n](https://en.wikipedia.org/wiki/List_of_films_featuring_time_loops#cite_note-25)\nRun Lola Run 1998 A woman has twenty minutes to find a large sum of money.",
]);

describe("lists of objects read from rows of one layout", () => {
  test("a numbered list: the rank from the number, the name from the line", () => {
    const { value } = fill("Birth lottery report: the top-ranked countries with their positions", [rankings], {
      top_countries: [{ rank: "integer", country: "string" }],
    });
    expect(value.top_countries).toEqual([
      { rank: 1, country: "Finland" },
      { rank: 2, country: "Norway" },
      { rank: 3, country: "Australia" },
      { rank: 4, country: "Canada" },
    ]);
  });

  test("ingredient lines: the quantity as written, with its unit, and the ingredient", () => {
    const { value } = fill("Roasted chicken recipe: list the ingredients with their quantities", [recipe], {
      ingredients: [{ name: "string", quantity: "string" }],
    });
    expect(value.ingredients).toEqual([
      { name: "whole chicken", quantity: "1 large or 1200 g" },
      { name: "vegetable oil", quantity: "2 tablespoons" },
      { name: "minced lamb", quantity: "250 g" },
      { name: "ground cinnamon", quantity: "1 tablespoon" },
      { name: "MAGGI Chicken Stock", quantity: "3 cubes" },
    ]);
  });

  test("a table: each number field takes the column its words head, whatever the order of the fields", () => {
    const { value, citations } = fill("simdjson vs JSON for Modern C++ benchmarks: speed per test file", [benchmark], {
      benchmarks: [{ file: "string", json_for_modern_cpp_gb_per_s: "number", simdjson_gb_per_s: "number" }],
    });
    expect(value.benchmarks).toEqual([
      { file: "apache_builds", json_for_modern_cpp_gb_per_s: 0.098, simdjson_gb_per_s: 2.3 },
      { file: "github_events", json_for_modern_cpp_gb_per_s: 0.093, simdjson_gb_per_s: 2.5 },
      { file: "gsoc-2018", json_for_modern_cpp_gb_per_s: 0.091, simdjson_gb_per_s: 3.3 },
    ]);
    expect(citations.get(1)).toContain("gsoc-2018 3.3 GB/s 0.091 GB/s");
  });

  test("titles with their years, across the footnote debris between rows", () => {
    const { value } = fill("Films featuring time loops, with their release years", [films], {
      films: [{ title: "string", year: "integer" }],
    });
    expect(value.films).toEqual([
      { title: "Groundhog Day", year: 1993 },
      { title: "Retroactive", year: 1997 },
      { title: "Run Lola Run", year: 1998 },
    ]);
  });

  test("rows whose surroundings name neither the list nor its fields are no answer", () => {
    const unrelated = source(1, "Quarterly report", ["Revenue by region\nNorth 12.5 m 3.1 m\nSouth 9.8 m 2.2 m\nWest 7.4 m 1.9 m"]);
    expect(fill("Films featuring time loops", [unrelated], { films: [{ title: "string", rating: "number" }] }).value).toEqual({
      films: null,
    });
  });

  test("one list cut in two by a line between its rows is read whole", () => {
    const split = source(1, "List of films featuring time loops", [
      "Groundhog Day 1993 A weatherman relives the same day.\nRetroactive 1997 A psychiatrist travels through time.",
      "More films of the decade\nRun Lola Run 1998 A woman has twenty minutes to find money.\nThe Last Day of Summer 2007 A boy wishes every day were the last day of summer.",
    ]);
    const { value } = fill("Films featuring time loops, with their years", [split], { films: [{ title: "string", year: "integer" }] });
    expect((value.films as { title: string }[]).map((f) => f.title)).toEqual([
      "Groundhog Day",
      "Retroactive",
      "Run Lola Run",
      "The Last Day of Summer",
    ]);
  });

  test("a list its surroundings do not name is not read from rows that merely share its items' field names", () => {
    const loops = source(
      2,
      "Time-loop films and their lead actors",
      films.passages.map((p) => p.text),
    );
    const sag = source(1, "Parasite wins at the SAG awards", [
      "Brad Pitt won for his supporting role, and Laura Dern was named best supporting actress.",
    ]);
    const { value } = fill("SAG awards: which supporting actor and actress won, and for which films?", [sag, loops], {
      supporting_winners: [{ actor: "string", film: "string" }],
    });
    expect(JSON.stringify(value)).not.toContain("Groundhog Day");
  });

  test("numbered steps written as sentences are not items", () => {
    const steps = source(1, "How to route a signal", [
      "The steps to pick a country route:\n1. Check if we have any cross-connections left going in this direction.\n2. Pick the next unused cross-connection and configure it.",
    ]);
    expect(fill("country routes", [steps], { countries: [{ rank: "integer", name: "string" }] }).value).toEqual({ countries: null });
  });
});
