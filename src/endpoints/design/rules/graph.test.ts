import { describe, expect, test } from "bun:test";
import type { Design } from "../../model.ts";
import { checkContent } from "../../rules.ts";
import { designByRules } from "./index.ts";

const req = (name: string, type: "string" | "number" | "boolean" = "string") => ({ name, type, required: true });
const inputsOf = (design: Design) => design.inputs.map(({ description: _, ...rest }) => rest);

describe("the graph researches the task", () => {
  test("one search node restates the task with the inputs as placeholders and names the fields", () => {
    const design = designByRules(
      "Given a company name, find its CEO, founding year, number of employees and whether it is publicly traded",
    );
    expect(design.graph.edges).toEqual([]);
    const [node] = design.graph.nodes;
    expect(node).toMatchObject({ id: "research", type: "search_agent", output_format: design.output_format, configuration: {} });
    expect(node!.system_prompt).toContain("{company_name}");
    expect(node!.system_prompt).toContain("Given a company name, find its CEO");
    for (const field of ["ceo (string)", "founding_year (integer)", "number_of_employees (integer)", "is_publicly_traded (boolean)"])
      expect(node!.system_prompt).toContain(field);
  });

  test("placeholders written in the prompt stay placeholders; braces that name no input do not", () => {
    const design = designByRules('For a given {Company Name}, find the CEO. Output like {"ceo": "..."}. A stray { brace.');
    expect(inputsOf(design)).toEqual([req("company_name")]);
    expect(design.output_format).toEqual({ ceo: "string" });
    expect(design.graph.nodes[0]!.system_prompt).toContain(
      'For a given {company_name}, find the CEO. Output like ("ceo": "..."). A stray ( brace.',
    );
    expect(() => checkContent({ original_prompt: "x", ...design, version_notes: null }, { allowMaxResults: false })).not.toThrow();
  });

  test("a comparison researches each subject on its own and combines them in a general node", () => {
    const design = designByRules("Compare two companies by revenue, number of employees and market capitalization");
    expect(design.graph.nodes.map((n) => [n.id, n.type])).toEqual([
      ["research_first", "search_agent"],
      ["research_second", "search_agent"],
      ["compare", "general_agent"],
    ]);
    expect(design.graph.edges).toEqual([
      { id: "e1", source: "research_first", target: "compare" },
      { id: "e2", source: "research_second", target: "compare" },
    ]);
    // Each search node fills its half under the endpoint's own key, so fields can be matched without a model.
    expect(design.graph.nodes[0]!.output_format).toEqual({ company_a: design.output_format.company_a });
    expect(design.graph.nodes[1]!.system_prompt).toContain("Research {company_b}");
    expect(design.graph.nodes[2]!.output_format).toEqual(design.output_format);
  });

  test("a comparison of placeholders pairs the first two text inputs", () => {
    const design = designByRules("Compare {product_a} versus {product_b} on price and battery life in {year}");
    expect(inputsOf(design)).toEqual([req("product_a"), req("product_b"), req("year", "number")]);
    expect(design.output_format).toEqual({
      product_a: { name: "string", price: "number", battery_life: "number" },
      product_b: { name: "string", price: "number", battery_life: "number" },
      comparison: "string",
    });
    expect(design.graph.nodes[0]!.system_prompt).toContain("The call also gives: year {year}.");
    expect(() => checkContent({ original_prompt: "x", ...design, version_notes: null }, { allowMaxResults: false })).not.toThrow();
  });

  test("two subjects without a comparison stay one research node", () => {
    const design = designByRules("Find the distance between two cities and the travel time by train");
    expect(inputsOf(design)).toEqual([req("first_city"), req("second_city")]);
    expect(design.output_format).toEqual({ distance: "number", travel_time_by_train: "string" });
    expect(design.graph.nodes.map((n) => n.id)).toEqual(["research"]);
  });
});
