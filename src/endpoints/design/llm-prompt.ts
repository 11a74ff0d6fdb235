/**
 * What a language model is asked when it designs an endpoint: the system
 * prompt and the JSON Schema of its structured answer. Strict structured
 * output cannot express a free-form output_format (its keys are the
 * model's choice), so the model lists the fields flat, each with a path
 * ("tourist_attractions[].ticket_price") and a type, and fromLlmDesign
 * assembles the nested shape.
 */
export { fromLlmDesign } from "./llm-design.ts";

export const FIELD_TYPES = ["string", "number", "integer", "boolean", "string[]", "number[]", "integer[]", "boolean[]"] as const;

export const DESIGN_SYSTEM_PROMPT = `You design a private, typed research API endpoint from an account owner's description of a research task. Each call of the endpoint runs a web research agent with the call's inputs and returns a JSON object with the fields you define.

Fill the schema:
- api_name: a short human title (at most 60 characters), e.g. "Company profile", "City tourist attractions".
- inputs: what varies from call to call (the subjects the description names: "given a company name" → company_name; "between two dates" → start_date and end_date; "in a given year" → year). Names are snake_case, start with a letter, and are never max_results (reserved: it is added automatically). type is "string", "number" or "boolean". required is false for inputs described as optional or that have a default. default is the default written in the description, as text (e.g. "2024", "USD"), or null. description is one short sentence. A description with no identifiable subject gets one input: query (string, required).
- output_fields: every field of the answer, as a flat list. path is snake_case names joined by "." for nested objects; "[]" after a name makes it a list of objects whose fields follow. type is "string", "number", "integer", "boolean", or one of those with "[]" for a list of plain values. Use integer for years and counts, number for prices, amounts, ratings and percentages, boolean for yes/no facts ("whether it is publicly traded" → is_publicly_traded), and lists for collections. For example "for a city, list the top attractions with their ticket prices" gives:
  {"path": "attractions[].name", "type": "string"}, {"path": "attractions[].ticket_price", "type": "number"}
  and "tags" gives {"path": "tags", "type": "string[]"}. When nothing specific is asked, use summary (string) and key_facts (string[]).
- search_instruction: a clear instruction for the research agent that restates the task with the inputs written as {input_name} placeholders (only names from inputs), names the fields to fill, and says to use null when the sources do not say.

Keep the design as small as the task allows: no fields the description does not ask for, at most 40 fields.`;

const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: "null" }] });

/** The JSON Schema of a design answer: every property required, nullable where optional, no extra properties. */
export function designSchema(): Record<string, unknown> {
  const input = {
    type: "object",
    properties: {
      name: { type: "string", description: "snake_case, e.g. company_name" },
      type: { type: "string", enum: ["string", "number", "boolean"] },
      required: { type: "boolean" },
      default: nullable({ type: "string", description: 'The default as text, e.g. "2024" or "USD"' }),
      description: nullable({ type: "string" }),
    },
    required: ["name", "type", "required", "default", "description"],
    additionalProperties: false,
  };
  const field = {
    type: "object",
    properties: {
      path: { type: "string", description: "e.g. ceo, headquarters.city, attractions[].ticket_price" },
      type: { type: "string", enum: [...FIELD_TYPES] },
    },
    required: ["path", "type"],
    additionalProperties: false,
  };
  return {
    type: "object",
    properties: {
      api_name: { type: "string" },
      inputs: { type: "array", items: input },
      output_fields: { type: "array", items: field },
      search_instruction: { type: "string" },
    },
    required: ["api_name", "inputs", "output_fields", "search_instruction"],
    additionalProperties: false,
  };
}
