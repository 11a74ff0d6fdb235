import { expect } from "bun:test";
import { INPUT_NAME, NODE_TYPES, type Design } from "../../src/endpoints/model.ts";
import { checkContent } from "../../src/endpoints/rules.ts";
import { checkOutputFormat } from "../../src/research/output-format.ts";

/** A required input as a design's tests write it: name and type. */
export const req = (name: string, type: "string" | "number" | "boolean" = "string") => ({ name, type, required: true });

/** A design's inputs without their descriptions, which are prose and change freely. */
export const inputsOf = (design: Design) => design.inputs.map(({ description: _, ...rest }) => rest);

/** The rules every design keeps, whatever the prompt: the service would store it as it is. */
export function expectValidDesign(design: Design, prompt: string): void {
  expect(checkOutputFormat(design.output_format, [])).toEqual([]);
  const names = design.inputs.map((i) => i.name);
  expect(new Set(names).size).toBe(names.length);
  for (const input of design.inputs) {
    expect(input.name).toMatch(new RegExp(INPUT_NAME));
    expect(input.name).not.toBe("max_results");
    expect(["string", "number", "boolean"]).toContain(input.type);
    expect(input.description?.length).toBeGreaterThan(0);
    if (input.default !== undefined) expect(typeof input.default).toBe(input.type);
  }
  expect(design.api_name.length).toBeGreaterThan(0);
  expect(design.api_name.length).toBeLessThanOrEqual(60);
  const ids = new Set(design.graph.nodes.map((n) => n.id));
  expect(design.graph.nodes.some((n) => n.type === "search_agent")).toBe(true);
  for (const node of design.graph.nodes) {
    expect(NODE_TYPES).toContain(node.type);
    for (const [, name] of node.system_prompt.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) expect(names).toContain(name!);
  }
  for (const edge of design.graph.edges) expect(ids.has(edge.source) && ids.has(edge.target)).toBe(true);
  // The service's own gate: inputs, output format, node types, placeholders, a DAG.
  expect(() =>
    checkContent({ original_prompt: prompt.trim() || "x", ...design, version_notes: null }, { allowMaxResults: false }),
  ).not.toThrow();
}
