import { describe, expect, test } from "bun:test";
import type { Design } from "../model.ts";
import { checkContent } from "../rules.ts";
import { DESIGN_SYSTEM_PROMPT, designSchema, fromLlmDesign } from "./llm-prompt.ts";
import { designByRules } from "./rules/index.ts";

const PROMPT = "For a city, list the top tourist attractions with their ticket prices and opening hours";
const valid = (design: Design) =>
  expect(() => checkContent({ original_prompt: "x", ...design, version_notes: null }, { allowMaxResults: false })).not.toThrow();

/** Every object schema inside `schema`, with its path. */
function objects(schema: unknown, path = "$"): [string, Record<string, unknown>][] {
  if (!schema || typeof schema !== "object") return [];
  const node = schema as Record<string, unknown>;
  const own: [string, Record<string, unknown>][] = node.type === "object" ? [[path, node]] : [];
  return [
    ...own,
    ...Object.entries(node).flatMap(([k, v]) =>
      Array.isArray(v) ? v.flatMap((x, i) => objects(x, `${path}.${k}[${i}]`)) : objects(v, `${path}.${k}`),
    ),
  ];
}

describe("the design schema suits strict structured output", () => {
  test("every object requires all its properties and allows no others", () => {
    const found = objects(designSchema());
    expect(found.map(([p]) => p)).toEqual(["$", "$.properties.inputs.items", "$.properties.output_fields.items"]);
    for (const [, node] of found) {
      expect(node.additionalProperties).toBe(false);
      expect([...(node.required as string[])].sort()).toEqual(Object.keys(node.properties as object).sort());
    }
  });

  test("output fields are flat paths with a type, which a model can fill reliably", () => {
    const fields = (designSchema().properties as Record<string, { items: { properties: Record<string, { enum?: string[] }> } }>)
      .output_fields;
    expect(Object.keys(fields!.items.properties)).toEqual(["path", "type"]);
    expect(fields!.items.properties.type!.enum).toEqual([
      "string",
      "number",
      "integer",
      "boolean",
      "string[]",
      "number[]",
      "integer[]",
      "boolean[]",
    ]);
    expect(DESIGN_SYSTEM_PROMPT).toContain("attractions[].ticket_price");
    expect(DESIGN_SYSTEM_PROMPT).toContain("{input_name}");
  });
});

describe("fromLlmDesign turns a filled schema into a valid design", () => {
  test("a good answer is taken as it is, its flat fields assembled into the nested format", () => {
    const design = fromLlmDesign(
      {
        api_name: "City tourist attractions",
        inputs: [
          { name: "city", type: "string", required: true, default: null, description: "The city to visit." },
          { name: "currency", type: "string", required: false, default: "EUR", description: null },
        ],
        output_fields: [
          { path: "attractions[].name", type: "string" },
          { path: "attractions[].ticket_price", type: "number" },
          { path: "attractions[].tags", type: "string[]" },
          { path: "city_facts.population", type: "integer" },
          { path: "city_facts.is_capital", type: "boolean" },
        ],
        search_instruction: "List the top tourist attractions of {city} with ticket prices in {currency}.",
      },
      PROMPT,
    );
    expect(design.api_name).toBe("City tourist attractions");
    expect(design.inputs).toEqual([
      { name: "city", type: "string", required: true, description: "The city to visit." },
      { name: "currency", type: "string", required: false, default: "EUR", description: "The currency." },
    ]);
    expect(design.output_format).toEqual({
      attractions: [{ name: "string", ticket_price: "number", tags: ["string"] }],
      city_facts: { population: "integer", is_capital: "boolean" },
    });
    expect(design.graph.edges).toEqual([]);
    expect(design.graph.nodes).toHaveLength(1);
    expect(design.graph.nodes[0]).toMatchObject({
      id: "research",
      type: "search_agent",
      output_format: design.output_format,
      configuration: {},
    });
    expect(design.graph.nodes[0]!.system_prompt).toStartWith(
      "List the top tourist attractions of {city} with ticket prices in {currency}.",
    );
    expect(design.graph.nodes[0]!.system_prompt).toContain(
      "Fill these fields: attractions (a list, each item with name (string), ticket_price (number), tags (a list of string values))",
    );
    valid(design);
  });

  test("a broken answer is repaired where the intent is clear and pruned where it is not", () => {
    const design = fromLlmDesign(
      {
        api_name: '  "A very long endpoint title that goes on and on well past the sixty character limit"  ',
        inputs: [
          { name: "Company Name", type: "string", required: true, default: null, description: null },
          { name: "start year", type: "integer", required: true, default: "2020", description: "From." },
          { name: "max_results", type: "number", required: false, default: 5, description: null },
          { name: "company_name", type: "string", required: true, default: null, description: null },
          { name: "verbose", type: "bool", required: true, default: "maybe", description: "" },
          { name: "", type: "string" },
          "not an input",
        ],
        output_fields: [
          { path: "ceo", type: "string" },
          { path: "ceo.name", type: "string" },
          { path: "Founded Year", type: "int" },
          { path: "offices[].city", type: "text" },
          { path: "offices.country", type: "string" },
          { path: "ipo_date", type: "date" },
          { path: "", type: "string" },
          { path: "a.b.c.d.e.f.g.h", type: "string" },
          { nonsense: true },
        ],
        search_instruction: "Find the CEO of {Company Name} since {start_year}, per {unknown} and {{ weird",
      },
      "Given a company name, find its CEO",
    );
    expect(design.api_name).toBe("A very long endpoint title that goes on and on well past the");
    expect(design.inputs).toEqual([
      { name: "company_name", type: "string", required: true, description: "The company name." },
      { name: "start_year", type: "number", required: false, default: 2020, description: "From." },
      { name: "verbose", type: "boolean", required: true, description: "The verbose." },
    ]);
    expect(design.output_format).toEqual({ ceo: "string", founded_year: "integer", offices: [{ city: "string" }], ipo_date: "string" });
    const prompt = design.graph.nodes[0]!.system_prompt;
    expect(prompt).toStartWith("Find the CEO of {company_name} since {start_year}, per (unknown) and (( weird");
    valid(design);
  });

  test("paths named like Object.prototype's properties are fields like any other", () => {
    const design = fromLlmDesign(
      {
        api_name: "x",
        inputs: [],
        output_fields: [
          { path: "constructor", type: "string" },
          { path: "__proto__.x", type: "string" },
          { path: "toString[].a", type: "number" },
        ],
        search_instruction: "",
      },
      PROMPT,
    );
    expect(design.output_format).toEqual({ constructor: "string", proto: { x: "string" }, tostring: [{ a: "number" }] });
    expect(Object.getPrototypeOf(design.output_format)).toBe(Object.prototype);
  });

  test("unusable parts fall back to the rules' parts", () => {
    const rules = designByRules(PROMPT);
    const design = fromLlmDesign(
      { api_name: "", inputs: [], output_fields: [{ path: "", type: "string" }], search_instruction: "" },
      PROMPT,
    );
    expect(design).toEqual(rules);
    const mixed = fromLlmDesign(
      { api_name: "Sights", inputs: "city", output_fields: [{ path: "sights", type: "string[]" }], search_instruction: null },
      PROMPT,
    );
    expect(mixed.inputs).toEqual(rules.inputs);
    expect(mixed.output_format).toEqual({ sights: ["string"] });
    expect(mixed.graph.nodes[0]!.system_prompt).toContain("{city}");
    valid(mixed);
  });

  test("garbage falls back to the rule-based design", () => {
    for (const garbage of [null, undefined, "a design", 42, [], { api_name: 5, inputs: { a: 1 }, output_fields: "ceo: string" }]) {
      const design = fromLlmDesign(garbage, PROMPT);
      expect(design.inputs).toEqual(designByRules(PROMPT).inputs);
      expect(design.output_format).toEqual(designByRules(PROMPT).output_format);
      valid(design);
    }
  });
});
