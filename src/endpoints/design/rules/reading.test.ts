import { describe, expect, test } from "bun:test";
import type { Design } from "../../model.ts";
import { checkContent } from "../../rules.ts";
import { designByRules } from "./index.ts";

const inputsOf = (design: Design) => design.inputs.map(({ description: _, ...rest }) => rest);
const valid = (design: Design) =>
  expect(() => checkContent({ original_prompt: "x", ...design, version_notes: null }, { allowMaxResults: false })).not.toThrow();

describe("inputs come from the prompt's subjects", () => {
  const subjects: [string, [string, string][]][] = [
    ["Find the CEO of a company", [["company", "string"]]],
    ["Given the name of a company, find the CEO", [["company_name", "string"]]],
    ["Look up a person by name and sort them by name", [["person_name", "string"]]],
    ["Find the winners in a given year", [["year", "number"]]],
    [
      "Find the biggest movies between two years",
      [
        ["start_year", "number"],
        ["end_year", "number"],
      ],
    ],
    [
      "Given a city and an optional country, find the mayor",
      [
        ["city", "string"],
        ["country", "string"],
      ],
    ],
    ["Étant donné une entreprise, trouve le PDG", [["company", "string"]]],
    ["Trouve la capitale d'un pays", [["country", "string"]]],
    ["Para un país, busca la capital", [["country", "string"]]],
    ["Für eine Stadt finde die Einwohnerzahl und den Bürgermeister", [["city", "string"]]],
  ];
  for (const [prompt, expected] of subjects) {
    test(`${prompt} → ${expected.map(([n]) => n).join(", ")}`, () => {
      const design = designByRules(prompt);
      expect(design.inputs.map((i) => [i.name, i.type])).toEqual(expected);
      valid(design);
    });
  }

  test("{placeholders} become inputs typed by their names; max_results never does", () => {
    const design = designByRules(
      "Find {company} revenue from {start_year} to {end_year}, up to {max_count} rows, only if {is_public}; {{include_reviews}} {whether_listed} {max_results}",
    );
    expect(inputsOf(design)).toEqual([
      { name: "company", type: "string", required: true },
      { name: "start_year", type: "number", required: true },
      { name: "end_year", type: "number", required: true },
      { name: "max_count", type: "number", required: true },
      { name: "is_public", type: "boolean", required: true },
      { name: "include_reviews", type: "boolean", required: true },
      { name: "whether_listed", type: "boolean", required: true },
    ]);
    expect(design.output_format).toEqual({ revenue: "number" });
    expect(design.graph.nodes[0]!.system_prompt).not.toContain("{max_results}");
    valid(design);
  });

  test("an input described as optional is not required", () => {
    expect(inputsOf(designByRules("Given a city, a currency (optional), find the average rent"))).toEqual([
      { name: "city", type: "string", required: true },
      { name: "currency", type: "string", required: false },
    ]);
  });

  test("a default written in the prompt is typed like the input and makes it optional", () => {
    expect(inputsOf(designByRules("Given a topic and a limit, defaulting to 10, find recent papers"))).toEqual([
      { name: "topic", type: "string", required: true },
      { name: "limit", type: "number", required: false, default: 10 },
    ]);
    expect(inputsOf(designByRules("Find reviews of {product}; {include_ratings} (default: yes)"))).toEqual([
      { name: "product", type: "string", required: true },
      { name: "include_ratings", type: "boolean", required: false, default: true },
    ]);
  });

  test("a default belongs to the input of its own clause", () => {
    expect(inputsOf(designByRules("Given a product, find prices in a currency, default: USD"))).toEqual([
      { name: "product", type: "string", required: true },
      { name: "currency", type: "string", required: false, default: "USD" },
    ]);
  });

  test("a default that does not fit the input's type is left out", () => {
    expect(inputsOf(designByRules("For a given year (default: last year), find the winner"))).toEqual([
      { name: "year", type: "number", required: true },
    ]);
  });
});

describe("output field types come from the words", () => {
  const design = designByRules(
    "Given a company, find its number of employees, how many stores it has, founding year, year founded, revenue, average rating, growth rate percentage, price, " +
      "whether it is publicly traded, is it open, does it have a free tier, headquarters address, website URL, founding date, main products, tags, keywords, top 5 competitors, ticket prices",
  );
  const expected: Record<string, unknown> = {
    number_of_employees: "integer",
    number_of_stores: "integer",
    founding_year: "integer",
    year_founded: "integer",
    revenue: "number",
    average_rating: "number",
    growth_rate_percentage: "number",
    price: "number",
    is_publicly_traded: "boolean",
    is_open: "boolean",
    has_free_tier: "boolean",
    headquarters_address: "string",
    website_url: "string",
    founding_date: "string",
    main_products: ["string"],
    tags: ["string"],
    keywords: ["string"],
    competitors: ["string"],
    // A plural of a measured thing is one value per subject.
    ticket_price: "number",
  };
  for (const [name, type] of Object.entries(expected))
    test(`${name} is ${JSON.stringify(type)}`, () => expect(design.output_format[name]).toEqual(type));
  test("and nothing else", () => expect(design.output_format).toEqual(expected));

  test("'with their …' after a list makes its rows objects; a later 'whether they …' stays in the row", () => {
    const rows = designByRules(
      "List the restaurants in a given city with their cuisine, average price and rating, and whether they are open now",
    );
    expect(rows.output_format).toEqual({
      restaurants: [{ name: "string", cuisine: "string", average_price: "number", rating: "number", is_open_now: "boolean" }],
    });
  });

  test("works in a list are known by their title", () => {
    expect(designByRules("For an author, list their books with their publication year").output_format).toEqual({
      books: [{ title: "string", publication_year: "integer" }],
    });
  });

  test("nothing specific asked gives a summary and key facts", () => {
    expect(designByRules("Tell me about a company").output_format).toEqual({ summary: "string", key_facts: ["string"] });
    expect(designByRules("Given a city, summarize it and list its museums").output_format).toEqual({
      summary: "string",
      museums: ["string"],
    });
  });

  test("a question after the subject asks for its answer", () => {
    expect(designByRules("Given a company, when was it founded?").output_format).toEqual({ year_founded: "integer" });
    expect(designByRules("Who won the World Cup in a given year, and what was the final score?").output_format).toEqual({
      winner: "string",
      final_score: "number",
    });
  });
});

describe("deterministic, pure and fast", () => {
  const prompt = "For a city, list the top tourist attractions with their ticket prices and opening hours";

  test("the same prompt gives the same design", () => {
    expect(designByRules(prompt)).toEqual(designByRules(prompt));
  });

  test("a design is the caller's own copy", () => {
    const first = designByRules(prompt);
    first.inputs[0]!.name = "changed";
    (first.output_format.tourist_attractions as Record<string, unknown>[])[0]!.name = "number";
    expect(designByRules(prompt).inputs[0]!.name).toBe("city");
    expect(designByRules(prompt).output_format.tourist_attractions).toEqual([
      { name: "string", ticket_price: "number", opening_hours: "string" },
    ]);
  });

  test("an everyday prompt takes well under a millisecond, a 100 KB one a few", () => {
    for (let i = 0; i < 50; i++) designByRules(prompt);
    let started = performance.now();
    for (let i = 0; i < 500; i++) designByRules(prompt);
    expect((performance.now() - started) / 500).toBeLessThan(1);
    const huge = "for a given company with their whether it is find list the top prices, default: 10 {x} of a country ".repeat(1_000);
    started = performance.now();
    valid(designByRules(huge));
    expect(performance.now() - started).toBeLessThan(50);
  });
});
